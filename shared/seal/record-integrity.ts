import { boundaryDigest } from '../authorship/boundary-digest';
import { policyDigest } from '../authorship/lineage-policy';
import { policyDigestOrNull } from '../authorship/policy-digest-or-null';
import { signedWriteDigest } from '../authorship/signed-write';
import { verifyWriterSignature } from '../authorship/verify-writer-signature';
import { writerDigest } from '../authorship/writer-digest';
import type { HexDigest } from '../canonical/digest';
import { hashWrittenCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import { HeaderTooLargeError } from '../errors';
import { MacAlgorithm } from '../ports/mac-anchor';
import { Authority } from '../schemas/authority';
import { BASE64_MAC_PATTERN } from '../schemas/base64-mac-pattern';
import { hasExactKeys } from '../schemas/has-exact-keys';
import { IDENTIFIER_PATTERN } from '../schemas/identifier';
import { areHexDigests } from '../schemas/is-hex-digest';
import { isNonNegativeInt } from '../schemas/is-non-negative-int';
import { isPlainObject } from '../schemas/is-plain-record';
import { NO_CONTROL_CHARACTERS } from '../schemas/no-control-characters';
import { markValidated, type Validated } from '../schemas/validated';
import { WireFields } from '../schemas/wire-fields';
import { manifestDigestOf } from '../triage/manifest-digest';
import { isManifest } from '../triage/parse-manifest';
import type { SealedDependencyManifest } from '../triage/sealed-dependency-manifest';
import { type CheckedPayload, checkPayload } from '../write/json-payload';
import { isVariableList } from './is-variable-list';
import { RecordBatchPlaceSchema } from './record-batch';
import { encodeHeaderWithHash, RECORD_FORMAT_WRITER_BOUND } from './record-header';
import { type SealedRecord, SealedRecordSchema } from './sealed-record';
import { isOptionalSupersedes } from './supersedes';
import { variablesDigest } from './variables-digest';
import { VerificationVerdict as V, type VerificationVerdict } from './verification-verdict';

/** A stored record whose own fields agree with its header, with the bytes its hash and MAC cover. */
export interface IntactRecord {
  readonly record: SealedRecord;
  /** `headerBytes(record.header)`: the MAC message of a record MAC'd on its own (verify-record-mac.ts). */
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
  const version = (raw as { header?: { formatVersion?: unknown } } | null)?.header?.formatVersion;
  if (typeof version === 'number' && version !== FORMAT_VERSION && version !== RECORD_FORMAT_WRITER_BOUND) {
    const reason = `format version ${version} is not known to this verifier; cannot verify`;
    return { verdict: V.UNVERIFIED_TAMPER_RISK, reason };
  }
  const shaped = acceptRecordAwaitingDigests(raw);
  if (shaped) return checkDigests(shaped.record, shaped, raw);
  const lost = lostManifestOf(raw);
  if (lost) return { verdict: V.HASH_MISMATCH, reason: lost };
  const parsed = SealedRecordSchema.safeParse(raw);
  if (!parsed.success) return malformedOf(parsed.error.issues[0]);
  const record = parsed.data;
  const payload = checkPayload(record.payload) as CheckedPayload;
  return checkDigests(record, { payloadText: payload.canonicalText, manifest: markValidated(record.manifest) }, null);
}

/**
 * Why a record came back from the store without the manifest its header names, naming the
 * digest: the store leaves `manifest` out when the content-addressed item is missing and sets it
 * to `null` when the item cannot be read (docs/sealing.md, "Stored items"); `null` otherwise.
 */
function lostManifestOf(raw: unknown): string | null {
  if (!isPlainObject(raw)) return null;
  const manifest = Object.hasOwn(raw, 'manifest') ? raw.manifest : undefined;
  if (manifest !== undefined && manifest !== null) return null;
  const header = raw.header;
  const digest = isPlainObject(header) ? header.manifestDigest : undefined;
  if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) return null;
  return manifest === undefined
    ? `the manifest of manifestDigest ${digest} is missing (its stored item deleted, or never written)`
    : `the manifest of manifestDigest ${digest} cannot be read (not gzip, or inflating past the bound)`;
}

/** The schema's first issue as the failure of check 1 (`HASH_MISMATCH`, "malformed record at …"). */
function malformedOf(issue: { path: readonly PropertyKey[]; message: string } | undefined): IntegrityFailure {
  const where = issue?.path.map(String).join('.') || '<root>';
  return { verdict: V.HASH_MISMATCH, reason: `malformed record at ${where}: ${issue?.message}` };
}

/** The schema's failure for `raw`, or `null` when the schema accepts it. */
function malformed(raw: unknown): IntegrityFailure | null {
  const parsed = SealedRecordSchema.safeParse(raw);
  return parsed.success ? null : malformedOf(parsed.error.issues[0]);
}

/**
 * Checks 2–5 on a record whose shape is valid: each digest recomputed from its body (the
 * payload from the canonical text the shape check wrote), `sealedAtMs`, the header's size and
 * the record hash. `deferred` is the raw record when its shape check was deferred: the four
 * digests compared here (`payloadHash`, `manifestDigest`, `variablesDigest`, `recordHash`) were
 * only known to be 64-character strings, and one equal to a digest computed here is hex; before
 * a mismatch is reported the schema is asked, so a malformed digest is reported as malformed, as
 * it always was. (Plain parameters, no closures: this runs once per record of every walk.)
 */
function checkDigests(
  record: SealedRecord,
  bodies: { readonly payloadText: string; readonly manifest: Validated<SealedDependencyManifest> },
  deferred: unknown,
): IntactRecord | IntegrityFailure {
  const { header } = record;
  if (hashWrittenCanonical(HashDomain.PAYLOAD, bodies.payloadText) !== header.payloadHash) {
    return mismatch(deferred, 'payload does not match the sealed payloadHash');
  }
  if (manifestDigestOf(bodies.manifest) !== header.manifestDigest) {
    return mismatch(deferred, 'manifest does not match the sealed manifestDigest');
  }
  if (variablesDigest(record.variablesUsed) !== header.variablesDigest) {
    return mismatch(deferred, 'variablesUsed does not match the sealed variablesDigest');
  }
  if (record.sealedAtMs !== header.sealedAtMs) {
    return mismatch(deferred, `sealedAtMs ${record.sealedAtMs} is not the sealed ${header.sealedAtMs}`);
  }
  if (header.formatVersion === RECORD_FORMAT_WRITER_BOUND) {
    const problem = writerBindingProblem(record);
    if (problem) return mismatch(deferred, problem);
  }
  let encoded: { message: Uint8Array; recordHash: HexDigest };
  try {
    encoded = encodeHeaderWithHash(header);
  } catch (error) {
    if (!(error instanceof HeaderTooLargeError)) throw error;
    return mismatch(deferred, `${error.message}: no anchor can have signed it`);
  }
  const { message, recordHash } = encoded;
  if (recordHash !== record.recordHash) return mismatch(deferred, 'recordHash does not match the header');
  if (record.anchor.keyId !== header.keyId) {
    return mismatch(deferred, `anchor names key ${record.anchor.keyId} but the header names ${header.keyId}`);
  }
  return { record, message, recordHash };
}

/**
 * Why a format-2 record's writer binding does not hold (docs/authorship.md, "Offline checks"), or
 * `null`: `writerDigest`, `boundaryDigest` and (for a record that sets one) `policyDigest`
 * recomputed from the stored bodies, and the writer's signature over the signed-write digest
 * rebuilt from the header. Run on a record the schema accepted (format-2 fields present).
 */
function writerBindingProblem(record: SealedRecord): string | null {
  const { header, writer, boundary, declaredImmutableConstants, policy } = record;
  if (!writer || !boundary || !declaredImmutableConstants || policy === undefined) {
    return 'a format-2 record without its writer, boundary or policy';
  }
  if (writerDigest(writer) !== header.writerDigest) return 'writer does not match the sealed writerDigest';
  const boundaryHash = boundaryDigest(boundary, declaredImmutableConstants);
  if (boundaryHash !== header.boundaryDigest) {
    return 'boundary or declaredImmutableConstants do not match the sealed boundaryDigest';
  }
  if (policy !== null && policyDigest(policy) !== header.policyDigest) {
    return 'policy does not match the sealed policyDigest';
  }
  const digest = signedWriteDigest({
    lineageId: header.lineageId,
    residualId: header.residualId,
    sessionId: header.sessionId,
    generationEpoch: header.generationEpoch,
    authority: header.authority,
    payloadHash: header.payloadHash,
    manifestDigest: header.manifestDigest,
    variablesDigest: header.variablesDigest,
    boundaryDigest: boundaryHash,
    supersedes: header.supersedes,
    policyDigest: policyDigestOrNull(policy),
    keyId: writer.keyId,
    publicKey: writer.publicKey,
    signedAtMs: writer.signedAtMs,
  });
  if (!verifyWriterSignature(digest, writer.publicKey, writer.signature)) {
    return 'the writer signature does not verify over the sealed write';
  }
  return null;
}

/** A `HASH_MISMATCH` of check 2–5, unless the deferred shape check finds the record malformed. */
function mismatch(deferred: unknown, reason: string): IntegrityFailure {
  return (deferred === null ? null : malformed(deferred)) ?? { verdict: V.HASH_MISMATCH, reason };
}

const RECORD_FIELDS = WireFields.sealedRecord.required;
const RECORD_OPTIONAL_FIELDS = WireFields.sealedRecord.optional;
const HEADER_FIELDS = WireFields.recordHeader.required;
const AUTHORITIES = new Set<unknown>(Object.values(Authority));
const MAC_ALGORITHMS = new Set<unknown>(Object.values(MacAlgorithm));
const MAX_KEY_ID_LENGTH = 2048;

const isIdentifier = (value: unknown): boolean => typeof value === 'string' && IDENTIFIER_PATTERN.test(value);
const isKeyId = (value: unknown): boolean =>
  typeof value === 'string' &&
  value.length <= MAX_KEY_ID_LENGTH &&
  NO_CONTROL_CHARACTERS.test(value) &&
  value.isWellFormed();
const isDigestLength = (value: unknown): boolean => typeof value === 'string' && value.length === 64;

/**
 * The shape check of {@link SealedRecordSchema} by hand (docs/canonical-form.md, "Validate once at
 * each trust boundary", says why), the payload canonicalized once on the way; `null` to ask the
 * schema. Only the four digests {@link checkDigests} recomputes are left at "a 64-character
 * string".
 */
function acceptRecordAwaitingDigests(
  raw: unknown,
): { record: SealedRecord; payloadText: string; manifest: Validated<SealedDependencyManifest> } | null {
  if (!isPlainObject(raw) || !hasExactKeys(raw, RECORD_FIELDS, RECORD_OPTIONAL_FIELDS)) return null;
  const { header, anchor } = raw;
  if (!isPlainObject(header) || !hasExactKeys(header, HEADER_FIELDS) || !isPlainObject(anchor)) return null;
  const { supersedes } = header;
  const shaped =
    header.formatVersion === FORMAT_VERSION &&
    isIdentifier(header.lineageId) &&
    isNonNegativeInt(header.monotonicSequenceNumber) &&
    isIdentifier(header.residualId) &&
    isIdentifier(header.sessionId) &&
    isDigestLength(header.payloadHash) &&
    isNonNegativeInt(header.generationEpoch) &&
    AUTHORITIES.has(header.authority) &&
    isDigestLength(header.manifestDigest) &&
    isDigestLength(header.variablesDigest) &&
    isNonNegativeInt(header.sealedAtMs) &&
    isKeyId(header.keyId) &&
    (supersedes === null || (isOptionalSupersedes(supersedes) && supersedes !== undefined)) &&
    isDigestLength(raw.recordHash) &&
    hasExactKeys(anchor, WireFields.anchorSignature.required) &&
    (anchor.keyId === header.keyId || isKeyId(anchor.keyId)) &&
    MAC_ALGORITHMS.has(anchor.algorithm) &&
    typeof anchor.mac === 'string' &&
    BASE64_MAC_PATTERN.test(anchor.mac) &&
    isNonNegativeInt(raw.sealedAtMs) &&
    (raw.macBatch === undefined || RecordBatchPlaceSchema.safeParse(raw.macBatch).success) &&
    areHexDigests([header.parentRecordHash, header.verdictDigest]) &&
    isVariableList(raw.variablesUsed) &&
    isManifest(raw.manifest);
  if (!shaped) return null;
  const payload = checkPayload(raw.payload);
  if (!('canonicalText' in payload)) return null;
  return {
    record: raw as SealedRecord,
    payloadText: payload.canonicalText,
    manifest: markValidated(raw.manifest as SealedDependencyManifest),
  };
}
