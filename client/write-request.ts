import type { LineagePolicy } from '../shared/authorship/lineage-policy';
import type { JsonValue } from '../shared/canonical/canonical-json';
import { FORMAT_VERSION } from '../shared/canonical/hash-domain';
import { Authority } from '../shared/schemas/authority';
import { parseInput } from '../shared/schemas/parse';
import { buildManifest } from '../shared/triage/build-manifest';
import type { BuildManifestInput } from '../shared/triage/build-manifest-input';
import type { SealedDependencyManifest } from '../shared/triage/sealed-dependency-manifest';
import { type SessionVariable, VariableFreshness } from '../shared/write/session-variable';
import { ResidualWriteRequestSchema, type UnsignedWriteRequest } from '../shared/write/write-request';

/**
 * Builds an unsigned {@link ResidualWriteRequest} (docs/guard.md, "Input"; docs/triage.md, "The
 * four recorded elements") from the fields an agent must choose, without spelling every field by hand.
 */

/** Input of {@link writeRequest}: the fields an agent must choose; the rest get defaults. */
export interface WriteRequestInput {
  readonly residualId: string;
  readonly lineageId: string;
  /** The active session (also `boundary.activeSessionId`). */
  readonly sessionId: string;
  readonly generationEpoch: number;
  readonly payload: JsonValue;
  /** Default `[]`. */
  readonly variables?: readonly SessionVariable[];
  /** Default `OPERATIONAL`. */
  readonly authority?: Authority;
  /** When the session took over, ms since the Unix epoch. */
  readonly boundaryAtMs: number;
  /**
   * The predecessor session and its generation epoch, if this session inherited context; absent on
   * a cold start, which may use no inherited variable. The guard needs both: the epoch is the
   * fencing token and bounds the inherited variables' `sourceEpoch`.
   */
  readonly predecessor?: { readonly sessionId: string; readonly epoch: number };
  /**
   * Names declared immutable. Default: the names of the `IMMUTABLE_CONSTANT` variables passed.
   */
  readonly declaredImmutableConstants?: readonly string[];
  /**
   * The manifest, ready-made, or as the environment snapshot (with structural keys, claims and
   * any keys declared absent) to build it from with `buildManifest`.
   */
  readonly manifest: SealedDependencyManifest | BuildManifestInput;
  /** The record this write re-seals after targeted re-probes (docs/triage.md, "The report"). */
  readonly supersedes?: { readonly seq: number; readonly recordHash: string };
  /**
   * The lineage write policy this write sets: required on a lineage's first write (inception,
   * the policy whose digest ends the lineage id), else only to rotate, revoke or recover keys
   * (docs/authorship.md, "Lineage write policy").
   */
  readonly policy?: LineagePolicy;
}

/** The write request schema without the writer block: what {@link writeRequest} checks before signing. */
const UnsignedWriteRequestSchema = ResidualWriteRequestSchema.omit({ writer: true });

/**
 * An unsigned residual write request (docs/guard.md, "Input") with sane defaults (`formatVersion` 1, authority `OPERATIONAL`,
 * the boundary's active session = `sessionId`, immutable constants declared from the variables),
 * validated with the core schema. The client signs it when publishing (`ResealClient` option
 * `writer`, docs/authorship.md, "Signed writes").
 *
 * @throws {InvalidInputError} naming each bad field
 * @example
 * writeRequest({ residualId: 'r-1', lineageId: 'lin-1', sessionId: 's-2', generationEpoch: 2,
 *   payload: { note: 'db is postgres 16' }, boundaryAtMs: Date.now() - 1000,
 *   predecessor: { sessionId: 's-1', epoch: 1 },
 *   variables: [reprobedVariable('DB_HOST', 'db-1', 1, { probe: 'pg_isready', sessionId: 's-2', probedAtMs: Date.now() })],
 *   manifest: { env: { DB_HOST: 'db-1', ARCH: 'arm64' }, structuralKeys: ['ARCH'], claimDependencyMap: { db: ['DB_HOST'] } } })
 */
export function writeRequest(input: WriteRequestInput): UnsignedWriteRequest {
  const variables = [...(input.variables ?? [])];
  const declared =
    input.declaredImmutableConstants ??
    variables.filter((v) => v.freshness === VariableFreshness.IMMUTABLE_CONSTANT).map((v) => v.name);
  const manifest = 'env' in input.manifest ? buildManifest(input.manifest) : input.manifest;
  const request = {
    formatVersion: FORMAT_VERSION,
    residualId: input.residualId,
    lineageId: input.lineageId,
    sessionId: input.sessionId,
    generationEpoch: input.generationEpoch,
    authority: input.authority ?? Authority.OPERATIONAL,
    payload: input.payload,
    variablesUsed: variables,
    boundary: {
      activeSessionId: input.sessionId,
      ...(input.predecessor
        ? { predecessorSessionId: input.predecessor.sessionId, predecessorEpoch: input.predecessor.epoch }
        : {}),
      boundaryAtMs: input.boundaryAtMs,
    },
    declaredImmutableConstants: [...new Set(declared)],
    manifest,
    ...(input.supersedes ? { supersedes: { seq: input.supersedes.seq, recordHash: input.supersedes.recordHash } } : {}),
    ...(input.policy ? { policy: input.policy } : {}),
  };
  return parseInput(UnsignedWriteRequestSchema, request, 'residual write request');
}
