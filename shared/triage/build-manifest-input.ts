import { z } from 'zod';
import { EnvSnapshot } from '../schemas/env-snapshot';
import { MapKey } from '../schemas/map-key';
import { safeRecord } from '../schemas/safe-record';

/** One claim and its causal keys, a `(claimId, causalKeys)` pair, with the keys it expects absent. */
export interface ClaimDependency {
  readonly claimId: string;
  /** Keys the claim rests on that are in `env` (may be empty when `absentKeys` is not). */
  readonly causalKeys: readonly string[];
  /** Keys the claim rests on being absent from `env` (default none); see {@link ClaimKeys}. */
  readonly absentKeys?: readonly string[];
}

/**
 * The keys one claim rests on, in the map form of {@link BuildManifestInput.claimDependencyMap}
 * when the claim depends on a key being absent ("no proxy configured": `HTTP_PROXY`).
 */
export interface ClaimKeys {
  /** Keys in `env` the claim rests on (default none). */
  readonly causalKeys?: readonly string[];
  /**
   * Keys the claim rests on being absent from `env` (default none). Each must be absent from
   * `env`; in the manifest it joins the claim's causal keys and `absentKeys`, so its appearance
   * later invalidates the claim.
   */
  readonly absentKeys?: readonly string[];
}

const CausalKeyList = z.array(MapKey).min(1, 'a claim must name at least one causal key');

/**
 * Schema of a claim map as {@link buildManifest} takes it in map form: claim id → its causal
 * keys (all in `env`), or `{ causalKeys?, absentKeys? }` when it also rests on absent keys.
 */
export const ClaimKeysMapInput = safeRecord(
  z.union([
    CausalKeyList,
    z.strictObject({ causalKeys: z.array(MapKey).optional(), absentKeys: z.array(MapKey).optional() }),
  ]),
);

/** Strict schema of {@link BuildManifestInput}, which `buildManifest` validates its input with. */
export const BuildManifestInput = z.strictObject({
  env: EnvSnapshot,
  structuralKeys: z.array(MapKey),
  structuralAbsentKeys: z.array(MapKey).optional(),
  claimDependencyMap: z.union([
    ClaimKeysMapInput,
    z.array(z.strictObject({ claimId: MapKey, causalKeys: z.array(MapKey), absentKeys: z.array(MapKey).optional() })),
  ]),
});

/** Input of {@link buildManifest}. */
export interface BuildManifestInput {
  /** The environment at write time: key → value. */
  readonly env: Readonly<Record<string, string>>;
  /** Keys in `env` whose drift invalidates the whole record (order and repeats do not matter). */
  readonly structuralKeys: readonly string[];
  /**
   * Keys the whole record rests on being absent from `env` (default none): each must be absent;
   * its appearance later is structural drift (`FULL_RECONSTRUCTION_REQUIRED`).
   */
  readonly structuralAbsentKeys?: readonly string[];
  /**
   * Claim id → causal keys (or {@link ClaimKeys} with absent keys), as a map, or as a list of
   * {@link ClaimDependency} (a list lets repeated claim ids be detected and refused; JSON objects
   * silently keep the last of a repeated key).
   */
  readonly claimDependencyMap: Readonly<Record<string, readonly string[] | ClaimKeys>> | readonly ClaimDependency[];
}
