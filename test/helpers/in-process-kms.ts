import { createHmac } from 'node:crypto';
import { KMSClient } from '@aws-sdk/client-kms';
import { TEST_KEY_BYTES } from './seal-factories';

/** A fault {@link InProcessKms} answers every `GenerateMac` and `VerifyMac` with, as AWS KMS or the network would. */
export const KmsFault = {
  /** The key is disabled: `DisabledException` (HTTP 400, not retryable). */
  DISABLED: 'DISABLED',
  /** Request rate exceeded: `ThrottlingException` (HTTP 400, a throttling error the SDK retries). */
  THROTTLED: 'THROTTLED',
  /** No route to KMS: the connection fails before any answer (`EHOSTUNREACH`, a transient error the SDK retries). */
  UNREACHABLE: 'UNREACHABLE',
} as const;
/** One of {@link KmsFault}. */
export type KmsFault = (typeof KmsFault)[keyof typeof KmsFault];

interface HttpRequestLike {
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

/**
 * A real `KMSClient` (the SDK's middleware: serialization, standard retry strategy with its
 * default 3 attempts, error deserialization) over an in-process HTTP handler that computes
 * `GenerateMac` and `VerifyMac` with the test key, so `KMSMacAnchor` produces the same MACs as
 * `testAnchor()`, until a {@link KmsFault} is set (docs/guarantees.md "Faults").
 */
export class InProcessKms {
  /** The fault every `GenerateMac` and `VerifyMac` now meets, or `null` when KMS is healthy. */
  fault: KmsFault | null = null;
  /** HTTP attempts made, by operation (`GenerateMac`, …), the SDK's retries included. */
  readonly attempts = new Map<string, number>();
  readonly client: KMSClient;

  constructor() {
    this.client = new KMSClient({
      region: 'us-east-1',
      endpoint: 'http://kms.in-process.invalid',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      requestHandler: { handle: (request: HttpRequestLike) => this.#handle(request) } as never,
    });
  }

  async #handle(request: HttpRequestLike) {
    const operation = String(request.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '');
    this.attempts.set(operation, (this.attempts.get(operation) ?? 0) + 1);
    if (operation !== 'GenerateMac' && operation !== 'VerifyMac')
      return answer(400, { __type: 'UnsupportedOperationException', message: operation });
    switch (this.fault) {
      case KmsFault.DISABLED:
        return answer(400, {
          __type: 'DisabledException',
          message: 'arn:aws:kms:us-east-1:000000000000:key/k is disabled.',
        });
      case KmsFault.THROTTLED:
        return answer(400, { __type: 'ThrottlingException', message: 'Rate exceeded' });
      case KmsFault.UNREACHABLE:
        throw Object.assign(new Error('connect EHOSTUNREACH 10.0.0.1:443'), { code: 'EHOSTUNREACH' });
      default: {
        const text =
          typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body as Uint8Array);
        const input = JSON.parse(text) as { KeyId: string; Message: string; Mac?: string };
        const mac = createHmac('sha256', TEST_KEY_BYTES).update(Buffer.from(input.Message, 'base64')).digest();
        if (operation === 'VerifyMac') {
          if (input.Mac !== mac.toString('base64')) {
            return answer(400, { __type: 'KMSInvalidMacException', message: 'the MAC does not verify' });
          }
          return answer(200, { KeyId: input.KeyId, MacAlgorithm: 'HMAC_SHA_256', MacValid: true });
        }
        return answer(200, { KeyId: input.KeyId, MacAlgorithm: 'HMAC_SHA_256', Mac: mac.toString('base64') });
      }
    }
  }
}

/** An HTTP response of the KMS JSON protocol. */
function answer(statusCode: number, body: Record<string, unknown>) {
  const type = typeof body.__type === 'string' ? { 'x-amzn-errortype': body.__type } : {};
  return {
    response: {
      statusCode,
      headers: { 'content-type': 'application/x-amz-json-1.1', ...type },
      body: new TextEncoder().encode(JSON.stringify(body)),
    },
  };
}
