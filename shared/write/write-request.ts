import { z } from 'zod';
import { LineagePolicySchema } from '../authorship/lineage-policy';
import { WriterBlockSchema } from '../authorship/writer-block';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { AuthoritySchema } from '../schemas/authority';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { NormalFormIndex } from '../schemas/normal-form';
import { parseInput } from '../schemas/parse';
import { RecordRefSchema } from '../schemas/record-ref';
import { markValidated, type Validated } from '../schemas/validated';
import { compositeSealUnchecked } from '../triage/composite-seal';
import { SealedDependencyManifestSchema } from '../triage/sealed-dependency-manifest';
import { JsonPayloadSchema } from './json-payload';
import { SessionSnapshotBoundarySchema } from './session-boundary';
import { SessionVariableSchema, VariableName } from './session-variable';

/** Most variables one write may use. */
export const MAX_VARIABLES = 256;
/** Most names one write may declare as immutable constants. */
export const MAX_DECLARED_CONSTANTS = 256;
/**
 * Adds an issue for each name that repeats an earlier one exactly, or is the same text in a
 * different Unicode normal form (ambiguous, as in `safeRecord`).
 */
function refuseDuplicateNames(names: readonly unknown[], ctx: z.RefinementCtx, pathOf: (i: number) => PropertyKey[]) {
  const seen = new NormalFormIndex<{ index: number; name: string }>();
  names.forEach((name, index) => {
    // Refinements may run after element issues were already reported; skip what is not a name.
    if (typeof name !== 'string' || !name.isWellFormed()) return;
    const earlier = seen.claim(name, { index, name });
    if (earlier === undefined) return;
    const message =
      earlier.name === name
        ? `duplicate name ${JSON.stringify(name)} (first at index ${earlier.index})`
        : `names ${JSON.stringify(earlier.name)} (index ${earlier.index}) and ${JSON.stringify(name)} are the same text in different Unicode normal forms`;
    ctx.addIssue({ code: 'custom', message, path: pathOf(index) });
  });
}

/**
 * The manifest of a write: {@link SealedDependencyManifestSchema}, and (for a non-empty
 * `baselineKeyHashes`) a `preconditionSeal` equal to `compositeSeal(baselineKeyHashes)`. A
 * manifest whose seal does not match its own key hashes could be sealed but never triaged (every
 * recall would be refused as corrupt), so the guard refuses it at write time as invalid input at
 * `manifest.preconditionSeal`. Triage keeps its own check (`ManifestSealMismatchError`). An empty
 * `baselineKeyHashes` keeps an opaque seal, as the manifest schema allows.
 */
export const WriteManifestSchema = SealedDependencyManifestSchema.superRefine((manifest, ctx) => {
  if (Object.keys(manifest.baselineKeyHashes).length === 0) return;
  // The refinement runs even when the fields already failed (zod reports those); with a value
  // that is not a digest there is no seal to recompute, and a hostile one must not throw here.
  if (
    !Object.values(manifest.baselineKeyHashes).every(
      (hash) => typeof hash === 'string' && HEX_DIGEST_PATTERN.test(hash),
    )
  ) {
    return;
  }
  const recomputed = compositeSealUnchecked(manifest.baselineKeyHashes);
  if (recomputed === manifest.preconditionSeal) return;
  ctx.addIssue({
    code: 'custom',
    path: ['preconditionSeal'],
    message: `preconditionSeal does not match compositeSeal(baselineKeyHashes) (expected ${recomputed}): the manifest is corrupt and could never be triaged`,
  });
});

/**
 * Schema of a {@link ResidualWriteRequest}, the body of an SQS `residual-writes` message:
 * strict objects at every level (unknown fields refused), sizes bounded, variable names unique.
 */
export const ResidualWriteRequestSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  residualId: Identifier,
  lineageId: Identifier,
  sessionId: Identifier,
  /** The write's generation epoch: a monotonic counter, used as a fencing token. */
  generationEpoch: NonNegativeInt,
  authority: AuthoritySchema,
  payload: JsonPayloadSchema,
  variablesUsed: z
    .array(SessionVariableSchema)
    .max(MAX_VARIABLES)
    .superRefine((variables, ctx) =>
      refuseDuplicateNames(
        variables.map((v) => (v as { name?: unknown } | undefined)?.name),
        ctx,
        (i) => [i, 'name'],
      ),
    ),
  boundary: SessionSnapshotBoundarySchema,
  declaredImmutableConstants: z
    .array(VariableName)
    .max(MAX_DECLARED_CONSTANTS)
    .superRefine((names, ctx) => refuseDuplicateNames(names, ctx, (i) => [i])),
  manifest: WriteManifestSchema,
  supersedes: RecordRefSchema.optional(),
  /**
   * The lineage write policy this write sets: required on a new lineage's first write
   * (inception), else only to rotate, revoke or recover keys (docs/authorship.md).
   */
  policy: LineagePolicySchema.optional(),
  /** Who signed the request, when, and the signature (docs/authorship.md, "Signed writes"). */
  writer: WriterBlockSchema,
});

/**
 * A request to write a new residual (docs/guard.md, "Input"), before the guard.
 *
 * `{ formatVersion: 1; residualId; lineageId; sessionId; generationEpoch; authority; payload: JsonValue;
 *    variablesUsed: SessionVariable[]; boundary: SessionSnapshotBoundary; declaredImmutableConstants: string[];
 *    manifest: SealedDependencyManifest; supersedes?: { seq; recordHash }; policy?: LineagePolicy;
 *    writer: { keyId; publicKey; signedAtMs; signature } }`
 */
export type ResidualWriteRequest = z.infer<typeof ResidualWriteRequestSchema>;

/** A write request before it is signed: everything but the writer block. */
export type UnsignedWriteRequest = Omit<ResidualWriteRequest, 'writer'>;

/**
 * {@link ResidualWriteRequestSchema} without `payload` and `manifest`: the small fields, for the
 * hand-written checks that take the two large bodies apart (the guard's `acceptWriteRequest`, the
 * sealer's `parseSealRequest`; docs/canonical-form.md, "Validate once at each trust boundary").
 */
export const WriteRequestRestSchema = ResidualWriteRequestSchema.omit({ payload: true, manifest: true });

/**
 * Validates an untrusted write request once, at a trust boundary (the guard's queue, the CLI's
 * file), against {@link ResidualWriteRequestSchema} (its payload canonicalized once there), and
 * brands it so that the guard's unchecked entry point (`evaluateValidatedWrite`) takes it
 * without a second parse.
 *
 * @param options.unknownFieldPerKey - name each unknown field as its own issue (`parseInput`);
 *   the CLI's messages do, the guard's stored issues keep zod's one issue per object
 * @throws {InvalidInputError} naming each bad field
 */
export function parseWriteRequest(
  raw: unknown,
  options: { readonly unknownFieldPerKey?: boolean } = {},
): Validated<ResidualWriteRequest> {
  return markValidated(parseInput(ResidualWriteRequestSchema, raw, 'residual write request', options));
}
