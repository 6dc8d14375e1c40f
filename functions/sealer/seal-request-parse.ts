import { hashWrittenCanonical } from '../../shared/canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../../shared/canonical/hash-domain';
import { type SealRequest, SealRequestSchema } from '../../shared/pipeline/seal-request';
import { hasExactKeys } from '../../shared/schemas/has-exact-keys';
import { isNonNegativeInt } from '../../shared/schemas/is-non-negative-int';
import { isPlainRecord } from '../../shared/schemas/is-plain-record';
import { markValidated, type Validated } from '../../shared/schemas/validated';
import { WireFields } from '../../shared/schemas/wire-fields';
import { sealInputOfWrite, type ValidatedSealInput } from '../../shared/seal/seal-input';
import { acceptManifestWithDigests } from '../../shared/triage/accepts-manifest-v1';
import { manifestDigests } from '../../shared/triage/manifest-digest';
import { isManifest, parseManifest } from '../../shared/triage/parse-manifest';
import type { SealedDependencyManifest } from '../../shared/triage/sealed-dependency-manifest';
import { checkPayload } from '../../shared/write/json-payload';
import { type ResidualWriteRequest, WriteRequestRestSchema } from '../../shared/write/write-request';

/**
 * A {@link SealRequest} validated at the sealer's boundary, branded down to its write request, so
 * the guard's rules run on that write (`evaluateValidatedWrite`) with no second parse and no cast.
 */
export type ValidatedSealRequest = Validated<
  Omit<SealRequest, 'request'> & { readonly request: Validated<ResidualWriteRequest> }
>;

/** Brands a seal request that has just passed {@link SealRequestSchema} (or the checks proven to accept no more). */
function validatedSealRequest(request: SealRequest): ValidatedSealRequest {
  return markValidated({ ...request, request: markValidated(request.request) });
}

/** A `seal-requests` body validated once, with what sealing it needs computed in the same pass. */
export interface ParsedSealRequest {
  readonly request: ValidatedSealRequest;
  /** The seal input of the write, its payload hash and manifest digest computed here. */
  readonly seal: ValidatedSealInput;
}

const SEAL_REQUEST_FIELDS = WireFields.sealRequest.required;
const SafeVerdict = SealRequestSchema.shape.verdict;
const SenderId = SealRequestSchema.shape.senderId;

/**
 * Validates the JSON of a `seal-requests` body once, at the sealer's trust boundary, and
 * computes there what the seal needs: the payload's canonical text (one pass: check, size,
 * hash), the manifest's composite seal (the write manifest's self-check) and digest (one text of
 * `baselineKeyHashes` for both).
 *
 * The large parts (payload, manifest) are checked by hand (docs/canonical-form.md, "Validate once
 * at each trust boundary": zod costs about 0.7 µs per manifest key, more than the whole seal of a
 * small write), the small ones by their zod schemas. A body that is not accepted that way goes to
 * {@link SealRequestSchema}, which decides and words the issues, so the refusal is the one it
 * always was.
 *
 * @returns the validated request and its seal input, or the schema's issues as one detail text
 */
export function parseSealRequest(json: unknown): ParsedSealRequest | { readonly detail: string } {
  const fast = acceptSealRequest(json);
  if (fast) return fast;
  const parsed = SealRequestSchema.safeParse(json);
  if (!parsed.success)
    return { detail: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const request = validatedSealRequest(parsed.data);
  const write = request.request;
  const { canonicalText } = checkPayload(write.payload) as { canonicalText: string };
  const { manifestDigest } = manifestDigests(parseManifest(write.manifest));
  const payloadHash = hashWrittenCanonical(HashDomain.PAYLOAD, canonicalText);
  return {
    request,
    seal: sealInputOfWrite(
      write,
      request.verdict.verdictDigest,
      { payloadHash, manifestDigest },
      request.senderId ?? null,
    ),
  };
}

/**
 * A write manifest checked and digested: format 1 in one pass over its baseline, anything else
 * (format 2, non-ASCII keys) by {@link isManifest}, then digested; `null` when it is not a manifest.
 */
function checkedManifestDigests(
  manifest: unknown,
): (ReturnType<typeof manifestDigests> & { manifest: Validated<SealedDependencyManifest>; size: number }) | null {
  const fast = acceptManifestWithDigests(manifest);
  if (fast) return fast;
  if (!isManifest(manifest)) return null;
  const m = markValidated(manifest);
  return { manifest: m, size: Object.keys(m.baselineKeyHashes).length, ...manifestDigests(m) };
}

/** The hand-written path of {@link parseSealRequest}: the parsed request, or `null` to ask the schema. */
function acceptSealRequest(json: unknown): ParsedSealRequest | null {
  if (!isPlainRecord(json) || !hasExactKeys(json, SEAL_REQUEST_FIELDS, WireFields.sealRequest.optional)) return null;
  if (json.formatVersion !== FORMAT_VERSION || !isNonNegativeInt(json.acceptedAtMs)) return null;
  if (json.senderId !== undefined && !SenderId.safeParse(json.senderId).success) return null;
  const write = json.request;
  if (!isPlainRecord(write) || !SafeVerdict.safeParse(json.verdict).success) return null;
  const { payload, manifest, ...rest } = write;
  const checked = checkPayload(payload);
  if (!('canonicalText' in checked) || !WriteRequestRestSchema.safeParse(rest).success) return null;
  const digests = checkedManifestDigests(manifest);
  // The write manifest's own check (WriteManifestSchema): a non-empty baseline seals to preconditionSeal.
  if (digests === null || (digests.size > 0 && digests.compositeSeal !== digests.manifest.preconditionSeal))
    return null;
  // Every field passed a check proven to accept nothing the schema refuses.
  const request = validatedSealRequest(json as unknown as SealRequest);
  const payloadHash = hashWrittenCanonical(HashDomain.PAYLOAD, checked.canonicalText);
  return {
    request,
    seal: sealInputOfWrite(
      request.request,
      request.verdict.verdictDigest,
      { payloadHash, manifestDigest: digests.manifestDigest },
      request.senderId ?? null,
    ),
  };
}
