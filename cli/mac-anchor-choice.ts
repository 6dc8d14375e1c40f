import type { KMSClient } from '@aws-sdk/client-kms';
import { UnavailableMacAnchor } from '../client/unavailable-mac-anchor';
import type { AnchorSignature, MacAnchor } from '../shared/ports/mac-anchor';
import { LocalHmacAnchor, MIN_LOCAL_KEY_BYTES } from '../shared/seal/local-hmac-anchor';
import { VerifyOnceMacAnchor } from '../shared/seal/verify-once-mac-anchor';
import { BadInputError } from './errors';
import type { CliIo } from './io';
import { kmsReachable } from './kms-reachable';

/** How MACs are checked, as reported in the verification output. */
export const MacCheck = {
  KMS: 'kms',
  LOCAL_KEY: 'local-key',
  UNAVAILABLE: 'unavailable',
  /** A key is reachable but only the data names the key id: MACs not checked (fail closed). */
  UNPINNED: 'unpinned',
  /** `verify --lineage` without `--audit-macs`: no MAC call; every record proven a leaf of the signed tree instead. */
  SIGNED_TREE: 'signed-tree',
} as const;
/** One of {@link MacCheck}. */
export type MacCheck = (typeof MacCheck)[keyof typeof MacCheck];

/** Options that choose the anchor of `reseal verify`. */
export interface AnchorOptions {
  readonly localKeyHex?: string;
  readonly keyId?: string;
  readonly offline?: boolean;
  readonly kms?: boolean;
}

/**
 * A MAC key id the verifier pinned itself (never one read from the data being verified):
 * `--key-id`, or the `MacKeyArn` output of the stack (`--stack`).
 */
export interface KeyPin {
  readonly keyId: string;
  /** Where the key id came from, e.g. `--key-id` or `stack ResealStack output MacKeyArn`. */
  readonly source: string;
}

/** Note (and failure reason) of a verification whose only key id came from the data. */
export const UNPINNED_NOTE = 'MAC key not pinned: pass --key-id or --stack';

/** The anchor chosen and how it was chosen. */
export interface MacAnchorChoice {
  readonly anchor: MacAnchor;
  readonly macCheck: MacCheck;
  readonly keyId: string;
  /** Why MACs cannot be checked, when they cannot. */
  readonly note: string | null;
}

/** A KMS client configured from the run's environment (endpoint from `AWS_ENDPOINT_URL`); loads the SDK. */
async function kmsClientFor(env: CliIo['env']): Promise<KMSClient> {
  const { KMSClient } = await import('@aws-sdk/client-kms');
  const endpoint = env.AWS_ENDPOINT_URL_KMS ?? env.AWS_ENDPOINT_URL;
  return new KMSClient({
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
  });
}

/**
 * A `KMSMacAnchor` (adapters/kms-mac-anchor.ts) made on its first MAC check, so choosing KMS
 * loads the AWS SDK only when a MAC is checked (never for `--help` or an offline command).
 */
class DeferredKmsMacAnchor implements MacAnchor {
  #anchor: Promise<MacAnchor> | undefined;
  constructor(
    private readonly env: CliIo['env'],
    readonly keyId: string,
  ) {}
  #load(): Promise<MacAnchor> {
    this.#anchor ??= Promise.all([kmsClientFor(this.env), import('../adapters/kms-mac-anchor')]).then(
      ([client, { KMSMacAnchor }]) => new KMSMacAnchor(client, this.keyId),
    );
    return this.#anchor;
  }
  async generateMac(message: Uint8Array): Promise<AnchorSignature> {
    return (await this.#load()).generateMac(message);
  }
  async verifyMac(message: Uint8Array, anchor: AnchorSignature): Promise<boolean> {
    return (await this.#load()).verifyMac(message, anchor);
  }
}

/**
 * Chooses how `reseal verify` checks MACs: a local HMAC key (`--local-key-hex`), KMS `VerifyMac`
 * (an endpoint or credentials in the environment, or `--kms`), or nothing (`--offline`, or no
 * endpoint and no credentials): then every MAC is unverifiable and the verdict fails closed
 * with `UNVERIFIED_TAMPER_RISK`, while hashes and links are still checked.
 *
 * Fail closed on the key too: KMS checks MACs only under a key id the verifier pinned
 * (`--key-id`, or `pin` from the stack). A key id named only by the records proves nothing (whoever
 * can create a KMS key can re-MAC a rewritten export under it), so without a pin the MACs are not
 * checked ({@link MacCheck.UNPINNED}, `UNVERIFIED_TAMPER_RISK`). A local key pins itself: its bytes
 * come from the verifier, so the key id is only a label.
 *
 * @param keyIdFromData - key id named by the records (untrusted: a label only, never a pin)
 * @param pin - key id the verifier resolved itself (the stack's `MacKeyArn`), used when `--key-id` is not given
 * @throws {BadInputError} for a malformed `--local-key-hex`, or an empty `--key-id` (it would pin no key)
 */
export function chooseAnchor(
  io: CliIo,
  options: AnchorOptions,
  keyIdFromData: string | null,
  pin: KeyPin | null = null,
): MacAnchorChoice {
  if (options.keyId !== undefined && options.keyId.trim() === '') {
    throw new BadInputError('--key-id: expected a KMS key ARN, key id or alias, not an empty string');
  }
  const pinned: KeyPin | null = options.keyId !== undefined ? { keyId: options.keyId, source: '--key-id' } : pin;
  const keyId = pinned?.keyId ?? keyIdFromData ?? 'unknown-key';
  if (options.localKeyHex !== undefined) {
    const hex = options.localKeyHex.trim();
    if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex) || hex.length < MIN_LOCAL_KEY_BYTES * 2) {
      throw new BadInputError(`--local-key-hex: expected at least ${MIN_LOCAL_KEY_BYTES} bytes as hex digits`);
    }
    const anchor = new LocalHmacAnchor({ keyId, key: Buffer.from(hex, 'hex') });
    return { anchor, macCheck: MacCheck.LOCAL_KEY, keyId, note: null };
  }
  if (!options.offline && (options.kms || kmsReachable(io.env))) {
    if (pinned) {
      const note = pinned.source === '--key-id' ? null : `key pinned from ${pinned.source}`;
      // One `VerifyMac` per distinct MAC of the run: the records of one sealer invocation share
      // their batch MAC (docs/sealing.md, "The record and its seal").
      const anchor = new VerifyOnceMacAnchor(new DeferredKmsMacAnchor(io.env, keyId));
      return { anchor, macCheck: MacCheck.KMS, keyId, note };
    }
    const reason = 'not pinned by the verifier (named only by the data): pass --key-id or --stack';
    return {
      anchor: new UnavailableMacAnchor(keyId, reason),
      macCheck: MacCheck.UNPINNED,
      keyId,
      note: UNPINNED_NOTE,
    };
  }
  const note = options.offline
    ? 'MACs not checked (--offline)'
    : 'MACs not checked: no KMS endpoint (AWS_ENDPOINT_URL) or AWS credentials, and no --local-key-hex';
  const reason = options.offline ? 'not checked (--offline)' : 'no KMS endpoint or AWS credentials, and no local key';
  return { anchor: new UnavailableMacAnchor(keyId, reason), macCheck: MacCheck.UNAVAILABLE, keyId, note };
}
