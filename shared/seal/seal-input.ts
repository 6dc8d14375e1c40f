import { z } from 'zod';
import { LineagePolicySchema } from '../authorship/lineage-policy';
import { RecordWriterSchema } from '../authorship/writer-block';
import type { HexDigest } from '../canonical/digest';
import { hashWrittenCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';
import { Authority, AuthoritySchema } from '../schemas/authority';
import { hasExactKeys } from '../schemas/has-exact-keys';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { IDENTIFIER_PATTERN, Identifier } from '../schemas/identifier';
import { isHexDigest } from '../schemas/is-hex-digest';
import { isNonNegativeInt } from '../schemas/is-non-negative-int';
import { isPlainRecord } from '../schemas/is-plain-record';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { parseInput } from '../schemas/parse';
import { markValidated, type Validated } from '../schemas/validated';
import { WireFields } from '../schemas/wire-fields';
import { manifestDigestOf } from '../triage/manifest-digest';
import { isManifest, parseManifest } from '../triage/parse-manifest';
import { type SealedDependencyManifest, SealedDependencyManifestSchema } from '../triage/sealed-dependency-manifest';
import { checkPayload, JsonPayloadSchema } from '../write/json-payload';
import { SessionSnapshotBoundarySchema } from '../write/session-boundary';
import { SessionVariableSchema, VariableName } from '../write/session-variable';
import { MAX_DECLARED_CONSTANTS, MAX_VARIABLES, type ResidualWriteRequest } from '../write/write-request';
import { isVariableList } from './is-variable-list';
import { isOptionalSupersedes, SupersedesSchema } from './supersedes';

/**
 * What to seal: an accepted residual write, with the guard's verdict digest.
 *
 * `{ lineageId; residualId; sessionId; payload: JsonValue; generationEpoch; authority;
 *    manifest: SealedDependencyManifest; verdictDigest; variablesUsed: SessionVariable[];
 *    supersedes?: { seq; recordHash }; writer?; boundary?; declaredImmutableConstants?; policy? }` (strict).
 *
 * With `writer` (and then `boundary`, `declaredImmutableConstants` and `policy`, which may be
 * `null`) the record is sealed in format 2 (docs/authorship.md, "Record format 2"); without, in
 * format 1 (legacy: tests and vectors of the old format).
 */
export const SealInputSchema = z
  .strictObject({
    lineageId: Identifier,
    residualId: Identifier,
    sessionId: Identifier,
    payload: JsonPayloadSchema,
    generationEpoch: NonNegativeInt,
    authority: AuthoritySchema,
    manifest: SealedDependencyManifestSchema,
    verdictDigest: HexDigestSchema,
    variablesUsed: z.array(SessionVariableSchema).max(MAX_VARIABLES),
    supersedes: SupersedesSchema.optional(),
    /** Format 2: the signed writer block with the SQS `SenderId`. */
    writer: RecordWriterSchema.optional(),
    /** Format 2: the write's session snapshot boundary. */
    boundary: SessionSnapshotBoundarySchema.optional(),
    /** Format 2: the names the write declared immutable. */
    declaredImmutableConstants: z.array(VariableName).max(MAX_DECLARED_CONSTANTS).optional(),
    /** Format 2: the lineage write policy the write sets, or `null`. */
    policy: LineagePolicySchema.nullable().optional(),
  })
  .superRefine((input, ctx) => {
    const bound = input.writer !== undefined;
    for (const field of ['boundary', 'declaredImmutableConstants', 'policy'] as const) {
      if (bound !== (input[field] !== undefined))
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: bound ? 'required with a writer (format 2)' : 'only with a writer (format 2)',
        });
    }
  });
/** Type of {@link SealInputSchema}. */
export type SealInput = z.input<typeof SealInputSchema>;

/**
 * A seal input validated once, with the digests of its bodies computed in the same pass: the
 * payload canonicalized once (check, size and hash), the manifest digested once. What
 * `sealValidated` seals without validating or serializing again.
 */
export interface ValidatedSealInput {
  readonly input: Validated<z.output<typeof SealInputSchema>>;
  /** `payloadHash(input.payload)`. */
  readonly payloadHash: HexDigest;
  /** `manifestDigest(input.manifest)`. */
  readonly manifestDigest: HexDigest;
}

const AUTHORITIES = new Set<unknown>(Object.values(Authority));
const isIdentifier = (value: unknown): boolean => typeof value === 'string' && IDENTIFIER_PATTERN.test(value);

/**
 * Validates an untrusted seal input once and digests its bodies (the checked entry point of
 * `sealRecord`). A well-formed input is checked by hand in one pass (docs/canonical-form.md,
 * "Validate once at each trust boundary"): the payload is canonicalized once and hashed from that
 * text; anything the hand-written checks do not accept goes to {@link SealInputSchema}, which
 * decides and words the error.
 *
 * @throws {InvalidInputError} naming each bad field of the `seal input`
 */
export function parseSealInput(raw: unknown): ValidatedSealInput {
  if (isPlainRecord(raw) && hasExactKeys(raw, WireFields.sealInput.required, WireFields.sealInput.optional)) {
    const payload = checkPayload(raw.payload);
    if (
      'canonicalText' in payload &&
      isIdentifier(raw.lineageId) &&
      isIdentifier(raw.residualId) &&
      isIdentifier(raw.sessionId) &&
      isNonNegativeInt(raw.generationEpoch) &&
      AUTHORITIES.has(raw.authority) &&
      isManifest(raw.manifest) &&
      isHexDigest(raw.verdictDigest) &&
      isVariableList(raw.variablesUsed) &&
      isOptionalSupersedes(raw.supersedes)
    ) {
      const input = markValidated(raw as z.output<typeof SealInputSchema>);
      return {
        input,
        payloadHash: hashWrittenCanonical(HashDomain.PAYLOAD, payload.canonicalText),
        manifestDigest: manifestDigestOf(markValidated(input.manifest)),
      };
    }
  }
  const input = markValidated(parseInput(SealInputSchema, raw, 'seal input'));
  const payload = checkPayload(input.payload) as { canonicalText: string };
  return {
    input,
    payloadHash: hashWrittenCanonical(HashDomain.PAYLOAD, payload.canonicalText),
    manifestDigest: manifestDigestOf(parseManifest(input.manifest)),
  };
}

/**
 * The seal input of a write request validated at the sealer's boundary, with the payload hash
 * and manifest digest computed there: every field is the request's own, already validated by
 * stricter schemas (`ResidualWriteRequestSchema`, `WriteVerdictSchema`), so nothing is checked
 * or digested again. The record is sealed in format 2, its writer the request's signed block with
 * `senderId` (the SQS `SenderId` of the original `residual-writes` message).
 */
export function sealInputOfWrite(
  write: Validated<ResidualWriteRequest>,
  verdictDigest: HexDigest,
  digests: { readonly payloadHash: HexDigest; readonly manifestDigest: HexDigest },
  senderId: string | null,
): ValidatedSealInput {
  const input = {
    lineageId: write.lineageId,
    residualId: write.residualId,
    sessionId: write.sessionId,
    payload: write.payload,
    generationEpoch: write.generationEpoch,
    authority: write.authority,
    manifest: write.manifest as SealedDependencyManifest,
    verdictDigest,
    variablesUsed: write.variablesUsed,
    ...(write.supersedes ? { supersedes: write.supersedes } : {}),
    writer: { ...write.writer, senderId },
    boundary: write.boundary,
    declaredImmutableConstants: write.declaredImmutableConstants,
    policy: write.policy ?? null,
  };
  return { input: markValidated(input), ...digests };
}
