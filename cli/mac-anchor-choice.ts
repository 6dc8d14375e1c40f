import { KMSClient } from '@aws-sdk/client-kms';
import { UnavailableMacAnchor } from '../client/verify-records';
import { KMSMacAnchor } from '../functions/adapters/kms-mac-anchor';
import type { MacAnchor } from '../shared/ports/mac-anchor';
import { LocalHmacAnchor, MIN_LOCAL_KEY_BYTES } from '../shared/seal/local-hmac-anchor';
import { BadInputError } from './errors';
import type { CliIo } from './io';

/** How MACs are checked, as reported in the verification output. */
export const MacCheck = {
  KMS: 'kms',
  LOCAL_KEY: 'local-key',
  UNAVAILABLE: 'unavailable',
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

/** The anchor chosen and how it was chosen. */
export interface AnchorChoice {
  readonly anchor: MacAnchor;
  readonly macCheck: MacCheck;
  readonly keyId: string;
  /** Why MACs cannot be checked, when they cannot. */
  readonly note: string | null;
}

const CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_PROFILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
];

/** True when the environment names a KMS endpoint or AWS credentials. */
export function kmsReachable(env: CliIo['env']): boolean {
  if (env.AWS_ENDPOINT_URL || env.AWS_ENDPOINT_URL_KMS) return true;
  return CREDENTIAL_VARIABLES.some((name) => Boolean(env[name]));
}

/** A KMS client configured from the run's environment (endpoint from `AWS_ENDPOINT_URL`). */
export function kmsClientFor(env: CliIo['env']): KMSClient {
  const endpoint = env.AWS_ENDPOINT_URL_KMS ?? env.AWS_ENDPOINT_URL;
  return new KMSClient({
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
  });
}

/**
 * Chooses how `reseal verify` checks MACs: a local HMAC key (`--local-key-hex`), KMS `VerifyMac`
 * (an endpoint or credentials in the environment, or `--kms`), or nothing (`--offline`, or no
 * endpoint and no credentials): then every MAC is unverifiable and the verdict fails closed
 * with `UNVERIFIED_TAMPER_RISK`, while hashes and links are still checked.
 *
 * @param keyIdFromData - key id named by the records, used when `--key-id` is not given
 * @throws {BadInputError} for a malformed `--local-key-hex`
 */
export function chooseAnchor(io: CliIo, options: AnchorOptions, keyIdFromData: string | null): AnchorChoice {
  const keyId = options.keyId ?? keyIdFromData ?? 'unknown-key';
  if (options.localKeyHex !== undefined) {
    const hex = options.localKeyHex.trim();
    if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex) || hex.length < MIN_LOCAL_KEY_BYTES * 2) {
      throw new BadInputError(`--local-key-hex: expected at least ${MIN_LOCAL_KEY_BYTES} bytes as hex digits`);
    }
    const anchor = new LocalHmacAnchor({ keyId, key: Buffer.from(hex, 'hex') });
    return { anchor, macCheck: MacCheck.LOCAL_KEY, keyId, note: null };
  }
  if (!options.offline && (options.kms || kmsReachable(io.env))) {
    return { anchor: new KMSMacAnchor(kmsClientFor(io.env), keyId), macCheck: MacCheck.KMS, keyId, note: null };
  }
  const note = options.offline
    ? 'MACs not checked (--offline)'
    : 'MACs not checked: no KMS endpoint (AWS_ENDPOINT_URL) or AWS credentials, and no --local-key-hex';
  const reason = options.offline ? 'not checked (--offline)' : 'no KMS endpoint or AWS credentials, and no local key';
  return { anchor: new UnavailableMacAnchor(keyId, reason), macCheck: MacCheck.UNAVAILABLE, keyId, note };
}
