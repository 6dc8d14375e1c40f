import { HashDomain, type HexDigest, hashBytes } from '../canonical/digest';
import { HeaderTooLargeError } from '../errors';
import { manifestDigest } from '../triage/manifest';
import { encodeHeader, payloadHash, variablesDigest } from './record-header';
import { type SealedRecord, SealedRecordSchema } from './sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from './verification-verdict';

/** A stored record whose own fields agree with its header, with the bytes its hash and MAC cover. */
export interface IntactRecord {
  readonly record: SealedRecord;
  /** `headerBytes(record.header)`: the MAC message. */
  readonly message: Uint8Array;
  /** Recomputed from `message`; equal to `record.recordHash`. */
  readonly recordHash: HexDigest;
}

/** Why a stored record does not agree with itself. */
export interface IntegrityFailure {
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

/**
 * The key-free self-checks of one stored record (docs/sealing.md, "Verification", checks 1–5):
 * a known format version, the strict record schema, `payloadHash`, `manifestDigest` and
 * `variablesDigest` recomputed from the bodies, `sealedAtMs` equal to the header's, the header
 * within 4,096 bytes and `recordHash` recomputed from it. Nothing about its place in a chain or
 * a tree, and no MAC: callers add those (`verifyChain`, `verifyRecordProof`).
 *
 * @param raw - a record as stored, untrusted
 * @returns the parsed record with its header bytes, or the verdict and reason of the first failing check
 */
export function checkRecordIntegrity(raw: unknown): IntactRecord | IntegrityFailure {
  const fail = (verdict: VerificationVerdict, reason: string): IntegrityFailure => ({ verdict, reason });
  const version = (raw as { header?: { formatVersion?: unknown } } | null)?.header?.formatVersion;
  if (typeof version === 'number' && version !== 1) {
    return fail(V.UNVERIFIED_TAMPER_RISK, `format version ${version} is not known to this verifier; cannot verify`);
  }
  const parsed = SealedRecordSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') || '<root>';
    return fail(V.HASH_MISMATCH, `malformed record at ${where}: ${issue?.message}`);
  }
  const record = parsed.data;
  const { header } = record;
  if (payloadHash(record.payload) !== header.payloadHash) {
    return fail(V.HASH_MISMATCH, 'payload does not match the sealed payloadHash');
  }
  if (manifestDigest(record.manifest) !== header.manifestDigest) {
    return fail(V.HASH_MISMATCH, 'manifest does not match the sealed manifestDigest');
  }
  if (variablesDigest(record.variablesUsed) !== header.variablesDigest) {
    return fail(V.HASH_MISMATCH, 'variablesUsed does not match the sealed variablesDigest');
  }
  if (record.sealedAtMs !== header.sealedAtMs) {
    return fail(V.HASH_MISMATCH, `sealedAtMs ${record.sealedAtMs} is not the sealed ${header.sealedAtMs}`);
  }
  let message: Uint8Array;
  try {
    message = encodeHeader(header);
  } catch (error) {
    if (!(error instanceof HeaderTooLargeError)) throw error;
    return fail(V.HASH_MISMATCH, `${error.message}: no anchor can have signed it`);
  }
  const recordHash = hashBytes(HashDomain.RECORD_HEADER, message);
  if (recordHash !== record.recordHash) return fail(V.HASH_MISMATCH, 'recordHash does not match the header');
  if (record.anchor.keyId !== header.keyId) {
    return fail(V.HASH_MISMATCH, `anchor names key ${record.anchor.keyId} but the header names ${header.keyId}`);
  }
  return { record, message, recordHash };
}

/** Narrows a {@link checkRecordIntegrity} result. */
export function isIntact(result: IntactRecord | IntegrityFailure): result is IntactRecord {
  return 'record' in result;
}
