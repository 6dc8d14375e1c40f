import type { WriteBodyDigests } from '../authorship/request-signing-digest';
import { hashWrittenCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';
import { isPlainRecord } from '../schemas/is-plain-record';
import { markValidated, type Validated } from '../schemas/validated';
import { acceptManifestWithDigests } from '../triage/accepts-manifest-v1';
import { SealedDependencyManifestV1Schema } from '../triage/sealed-dependency-manifest';
import { checkPayload } from './json-payload';
import { type ResidualWriteRequest, ResidualWriteRequestSchema, WriteRequestRestSchema } from './write-request';

/** A write request the hand-written checks accepted, with the digests of its two large bodies. */
export interface AcceptedWriteRequest {
  /** The request as {@link ResidualWriteRequestSchema} outputs it (members in the schema's order). */
  readonly request: Validated<ResidualWriteRequest>;
  /** Its `payloadHash` and `manifestDigest`, from the one pass that checked each body. */
  readonly digests: WriteBodyDigests;
}

/** Member order of the schema's output (zod writes a strict object's members in its shape's order). */
const REQUEST_MEMBERS = Object.keys(ResidualWriteRequestSchema.shape) as (keyof ResidualWriteRequest)[];
const MANIFEST_MEMBERS = Object.keys(SealedDependencyManifestV1Schema.shape);

/**
 * The hand-written path of `parseWriteRequest` (docs/canonical-form.md, "Validate once at each
 * trust boundary"), as the sealer's `parseSealRequest` has it: the payload checked by one
 * canonicalization (`checkPayload`), a format-1 manifest by `acceptManifestWithDigests` (its
 * composite seal compared with `preconditionSeal`, the write manifest's own check), the small
 * fields by their zod schemas; the payload hash and manifest digest come from those passes, so
 * the writer signature's digest need not serialize either body again. zod costs about 0.7 µs
 * per manifest key and the schema's path hashes the baseline twice.
 *
 * @returns the request, its members (and the manifest's) in the order the schema writes them,
 *   so its JSON is the schema output's byte for byte; or `null` (a format-2 manifest, a non-ASCII
 *   key, anything to refuse): the caller asks the schema, which decides and words the issues
 */
export function acceptWriteRequest(json: unknown): AcceptedWriteRequest | null {
  if (!isPlainRecord(json)) return null;
  const { payload, manifest, ...rest } = json;
  const checked = checkPayload(payload);
  if (!('canonicalText' in checked)) return null;
  const digests = acceptManifestWithDigests(manifest);
  if (digests === null || (digests.size > 0 && digests.compositeSeal !== digests.manifest.preconditionSeal))
    return null;
  const parsed = WriteRequestRestSchema.safeParse(rest);
  if (!parsed.success) return null;
  const fields: Record<string, unknown> = parsed.data;
  const manifestOut: Record<string, unknown> = {};
  for (const member of MANIFEST_MEMBERS) manifestOut[member] = (digests.manifest as Record<string, unknown>)[member];
  const request: Record<string, unknown> = {};
  for (const member of REQUEST_MEMBERS) {
    if (member === 'payload') request[member] = checked.value;
    else if (member === 'manifest') request[member] = manifestOut;
    else if (Object.hasOwn(fields, member)) request[member] = fields[member];
  }
  return {
    request: markValidated(request as ResidualWriteRequest),
    digests: {
      payloadHash: hashWrittenCanonical(HashDomain.PAYLOAD, checked.canonicalText),
      manifestDigest: digests.manifestDigest,
    },
  };
}
