import { createHash, type Hash, hash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson, canonicalString } from '../canonical/canonical-json';
import { HashDomain, type HexDigest } from '../canonical/digest';
import { type InputIssue, InvalidInputError } from '../errors';
import {
  acceptsAsciiMap,
  acceptsDigestMap,
  acceptsSortedAsciiKeys,
  areHexDigests,
  hasExactKeys,
  isAsciiMapKey,
  isHexDigest,
  isPlainAsciiMapKey,
  isPlainRecord,
} from '../schemas/hot-checks';
import { NormalFormIndex } from '../schemas/normal-form';
import { parseInput } from '../schemas/parse';
import {
  EnvSnapshot,
  HexDigest as HexDigestSchema,
  MapKey,
  RESERVED_KEY,
  safeRecord,
  wellFormedString,
} from '../schemas/primitives';
import { markValidated, type Validated } from '../schemas/validated';
import { WireFields } from '../schemas/wire-fields';

/** A list of map keys that must be sorted (UTF-16 code-unit order, as RFC 8785) and unique. */
export const SortedUniqueKeys = z.array(MapKey).superRefine((keys, ctx) => {
  for (let i = 1; i < keys.length; i++) {
    const previous = keys[i - 1] as string;
    const current = keys[i] as string;
    if (!(previous < current)) {
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message:
          previous === current
            ? `duplicate key ${JSON.stringify(current)}`
            : `keys must be sorted: ${JSON.stringify(current)} after ${JSON.stringify(previous)}`,
      });
      return;
    }
  }
});

/**
 * Manifest format versions. A verifier tells them apart by `formatVersion` alone, and refuses
 * any other value instead of guessing the layout (docs/canonical-form.md, "Manifest versions").
 * - `V1`: every structural and causal key was present at write time (a key hash each).
 * - `V2`: adds `absentKeys`, keys declared absent at write time that structural keys or claims
 *   rest on. Written only when at least one key is declared absent, so a manifest without one
 *   keeps the exact `V1` bytes and digest it always had.
 *
 * Only the manifest moves on: record headers, reports and every other hashed structure keep
 * `FORMAT_VERSION` 1.
 */
export const ManifestFormatVersion = { V1: 1, V2: 2 } as const;
/** One of {@link ManifestFormatVersion}. */
export type ManifestFormatVersion = (typeof ManifestFormatVersion)[keyof typeof ManifestFormatVersion];
/** The newest manifest format this code reads and writes. */
export const MANIFEST_FORMAT_VERSION = ManifestFormatVersion.V2;

const manifestFields = {
  preconditionSeal: HexDigestSchema,
  baselineKeyHashes: safeRecord(HexDigestSchema),
  structuralKeys: SortedUniqueKeys,
  claimDependencyMap: safeRecord(SortedUniqueKeys.min(1, 'a claim must name at least one causal key')),
};

/**
 * Schema of a format-1 manifest (strict: unknown fields, `absentKeys` included, are refused).
 *
 * The four recorded elements (docs/triage.md, "The four recorded elements"):
 * - `baselineKeyHashes` (element 1): env key → {@link envKeyHash} at write time.
 * - `structuralKeys` (element 2): keys whose drift invalidates the whole record; sorted, unique.
 * - `claimDependencyMap` (element 3): claim id → its `causal_keys`; each list sorted, unique,
 *   non-empty (a claim that depends on nothing could never be quarantined, so it is refused).
 * - element 4, the fail-closed `unattributed_drift_policy`, is not a field: it is the rule
 *   {@link isolateDelta} applies when `baselineKeyHashes` or `claimDependencyMap` is empty
 *   (a record written without granular data) on a broken seal.
 *
 * `preconditionSeal` is {@link compositeSeal} of `baselineKeyHashes`; for an empty
 * `baselineKeyHashes` it is taken as an opaque seal that cannot be self-checked.
 */
export const SealedDependencyManifestV1Schema = z.strictObject({
  formatVersion: z.literal(ManifestFormatVersion.V1),
  ...manifestFields,
});

/**
 * Schema of a format-2 manifest: the format-1 fields plus `absentKeys` (sorted, unique,
 * non-empty), the keys declared absent from the environment at write time. Structural keys and
 * claims name them like any other key; a declared-absent key that appears later is drift on
 * them. `absentKeys` is not part of `preconditionSeal` (an absent key has no value to hash; its
 * appearance breaks the composite anyway) but is covered by {@link manifestDigest}, hence by the
 * record's MAC. Refused, naming `absentKeys.<i>`: a key that also has a baseline key hash (or
 * whose other Unicode normal form has one), `__proto__` (never part of an environment), and a key
 * no structural key or claim names (it could invalidate nothing).
 */
export const SealedDependencyManifestV2Schema = z
  .strictObject({
    formatVersion: z.literal(ManifestFormatVersion.V2),
    preconditionSeal: manifestFields.preconditionSeal,
    baselineKeyHashes: manifestFields.baselineKeyHashes,
    absentKeys: SortedUniqueKeys.min(1, 'a format-2 manifest declares at least one absent key (else it is format 1)'),
    structuralKeys: manifestFields.structuralKeys,
    claimDependencyMap: manifestFields.claimDependencyMap,
  })
  .superRefine((manifest, ctx) => {
    // Refinements may run after element issues were reported; skip what is not well formed.
    if (!Array.isArray(manifest.absentKeys)) return;
    const present = presenceIndex(Object.keys(manifest.baselineKeyHashes ?? {}));
    const named = new Set<unknown>(Array.isArray(manifest.structuralKeys) ? manifest.structuralKeys : []);
    for (const keys of Object.values(manifest.claimDependencyMap ?? {})) {
      if (Array.isArray(keys)) for (const key of keys) named.add(key);
    }
    manifest.absentKeys.forEach((key, i) => {
      if (typeof key !== 'string' || !key.isWellFormed()) return;
      const conflict = presenceConflict(key, present, 'baselineKeyHashes');
      const message =
        conflict !== null
          ? `key ${JSON.stringify(key)} ${conflict}`
          : named.has(key)
            ? null
            : `key ${JSON.stringify(key)} is declared absent but no structural key or claim names it`;
      if (message !== null) ctx.addIssue({ code: 'custom', path: ['absentKeys', i], message });
    });
  });

/**
 * Schema of a {@link SealedDependencyManifest}: format 1 or 2, told apart by `formatVersion`
 * ({@link ManifestFormatVersion}); any other version is refused at `formatVersion`.
 */
export const SealedDependencyManifestSchema = z.discriminatedUnion('formatVersion', [
  SealedDependencyManifestV1Schema,
  SealedDependencyManifestV2Schema,
]);

/** A format-1 manifest: no key declared absent. */
export type SealedDependencyManifestV1 = z.infer<typeof SealedDependencyManifestV1Schema>;
/** A format-2 manifest: at least one key declared absent (`absentKeys`). */
export type SealedDependencyManifestV2 = z.infer<typeof SealedDependencyManifestV2Schema>;

/**
 * The precondition manifest stored with a sealed record (docs/triage.md, "The four recorded elements"), format
 * 1 or 2. Wire format: camelCase JSON, see {@link SealedDependencyManifestSchema}.
 */
export type SealedDependencyManifest = z.infer<typeof SealedDependencyManifestSchema>;

const V1_FIELDS = WireFields.manifestV1.required;
const isClaimKeys = (keys: unknown) => acceptsSortedAsciiKeys(keys, 1);

/**
 * Whether `raw` is a format-1 manifest {@link SealedDependencyManifestSchema} accepts, by the
 * hand-written checks of shared/schemas/hot-checks.ts (one regular-expression test per key;
 * zod costs about 0.9 µs per key on a 10,000-key manifest). `false` means "ask the schema": it
 * is also the answer for a valid manifest with a non-ASCII key, and for every format-2 manifest.
 */
function acceptsManifestV1(raw: unknown): boolean {
  return acceptsV1AroundBaseline(raw) && acceptsDigestMap(raw.baselineKeyHashes);
}

/**
 * Validates an untrusted manifest once: the checked entry point every consumer of a manifest
 * goes through (triage, sealing, verification), after which it passes the
 * {@link Validated} value inward.
 *
 * @param what - what the manifest is, for the error message
 * @throws {InvalidInputError} naming each bad field, as {@link SealedDependencyManifestSchema} words it
 */
export function parseManifest(raw: unknown, what = 'sealed dependency manifest'): Validated<SealedDependencyManifest> {
  if (acceptsManifestV1(raw)) return markValidated(raw as SealedDependencyManifest);
  return markValidated(parseInput(SealedDependencyManifestSchema, raw, what));
}

/**
 * For triage alone (`isolateDelta`): when `raw` passes every check of {@link acceptsManifestV1}
 * except that its `baselineKeyHashes` values are only known to be 64-character strings (not yet
 * lowercase hex), the {@link compositeSeal} of `baselineKeyHashes` hashed in the same pass as
 * those checks, and the number of its keys; else `null`. Triage finishes the check where it is
 * cheap: a baseline value equal to a key hash it computed is hex, so only the values of drifted
 * keys need the pattern test; on any failure it calls {@link parseManifest}, which words the
 * error. (With a value that is not hex the seal is still that of the text written, which cannot
 * match a manifest that is valid; triage then calls {@link parseManifest} before reporting.)
 */
export function baselineAwaitingDigests(
  raw: unknown,
  visit?: BaselineVisitor,
): { manifest: SealedDependencyManifest; compositeSeal: HexDigest; size: number } | null {
  if (!acceptsV1AroundBaseline(raw)) return null;
  const hashed = hashDigestMap(raw.baselineKeyHashes, true, [COMPOSITE_FRAME], visit);
  if (hashed === null) return null;
  return {
    manifest: raw as SealedDependencyManifest,
    compositeSeal: hashed.digests[0] as HexDigest,
    size: hashed.size,
  };
}

/** {@link acceptsManifestV1} but for `baselineKeyHashes`, which the caller checks in its own pass. */
function acceptsV1AroundBaseline(raw: unknown): raw is Record<string, unknown> {
  return (
    isPlainRecord(raw) &&
    hasExactKeys(raw, V1_FIELDS) &&
    raw.formatVersion === ManifestFormatVersion.V1 &&
    isHexDigest(raw.preconditionSeal) &&
    acceptsSortedAsciiKeys(raw.structuralKeys) &&
    acceptsAsciiMap(raw.claimDependencyMap, isClaimKeys)
  );
}

/**
 * For the sealer's boundary: a format-1 manifest checked by hand and digested in the same pass
 * over `baselineKeyHashes` (each member checked as it is written into both hashes, the digests'
 * hex checked together after), with {@link manifestDigests}' two digests and the map's number of
 * keys; else `null` (a format-2 manifest, a non-ASCII key, anything to refuse), and the caller
 * asks {@link isManifest} or the schema. Accepts exactly what {@link acceptsManifestV1} accepts.
 */
export function acceptManifestWithDigests(raw: unknown): {
  manifest: Validated<SealedDependencyManifest>;
  compositeSeal: HexDigest;
  manifestDigest: HexDigest;
  size: number;
} | null {
  if (!acceptsV1AroundBaseline(raw)) return null;
  const manifest = raw as SealedDependencyManifest;
  const digests: string[] = [];
  const collect = (_key: string, digest: string): boolean => digests.push(digest) > 0;
  const hashed = hashDigestMap(raw.baselineKeyHashes, true, [COMPOSITE_FRAME, manifestFrame(manifest)], collect);
  if (hashed === null || !areHexDigests(digests)) return null;
  const [compositeSeal, manifestDigest] = hashed.digests as [HexDigest, HexDigest];
  return { manifest: markValidated(manifest), compositeSeal, manifestDigest, size: hashed.size };
}

/** Whether {@link SealedDependencyManifestSchema} accepts `raw` (the fast checks first, the schema when they cannot tell). */
export function isManifest(raw: unknown): raw is SealedDependencyManifest {
  return acceptsManifestV1(raw) || SealedDependencyManifestSchema.safeParse(raw).success;
}

/** The keys a manifest declares absent: `absentKeys` of format 2, none in format 1. */
export function declaredAbsentKeys(manifest: SealedDependencyManifest): readonly string[] {
  return manifest.formatVersion === ManifestFormatVersion.V2 ? manifest.absentKeys : [];
}

/**
 * Hash of one environment key with its value (one `baselineKeyHashes` entry).
 *
 * `SHA-256("reseal/v1/env-key" || 0x00 || JCS({ v: 1, key, value }))`, 64 lowercase hex. The key
 * is bound into the hash, so two keys' hashes cannot be swapped to pass off one value as another.
 *
 * @param key - environment key: 1–512 UTF-16 units, well-formed, no control characters, not `__proto__`
 * @param value - its value, a well-formed string (≤ 65,536 UTF-16 units)
 * @throws {InvalidInputError} naming `key` or `value` when either is malformed
 * @example envKeyHash('ARCH', 'arm64') // → 64 hex chars
 */
export function envKeyHash(key: string, value: string): HexDigest {
  const input = parseInput(EnvKeyInput, { key, value }, 'environment key');
  return envKeyHashUnchecked(input.key, input.value);
}

const EnvKeyInput = z.strictObject({
  key: MapKey.refine((k) => k !== '__proto__', { message: 'key "__proto__" is reserved and refused' }),
  value: wellFormedString(65_536),
});

const ENV_KEY_PREFIX = `${HashDomain.ENV_KEY}\0{"key":`;

/**
 * {@link envKeyHash} for a key and value already validated (hot path of triage). The canonical
 * text of `{ v: 1, key, value }` is written directly (members sorted: `key` < `v` < `value`),
 * the bytes `canonicalJson` would give, so a key costs one SHA-256 and two string checks.
 */
export function envKeyHashUnchecked(key: string, value: string): HexDigest {
  return hash('sha256', `${ENV_KEY_PREFIX}${canonicalString(key)},"v":1,"value":${canonicalString(value)}}`, 'hex');
}

/**
 * {@link envKeyHashUnchecked} of a key and value that need no escape in JSON
 * ({@link isPlainAsciiMapKey}, `isPlainAsciiEnvValue`): written as they are, with no test for
 * escapes (the caller's check of each was that test).
 */
export function envKeyHashOfPlainText(key: string, value: string): HexDigest {
  return hash('sha256', `${ENV_KEY_PREFIX}"${key}","v":1,"value":"${value}"}`, 'hex');
}

/**
 * The composite `precondition_seal` over every key hash (docs/triage.md, rule 1).
 *
 * `SHA-256("reseal/v1/precondition-seal" || 0x00 || JCS({ v: 1, baselineKeyHashes }))`. Every key
 * counts, so a key that changed, vanished or appeared changes the seal.
 *
 * @param baselineKeyHashes - key → {@link envKeyHash}
 * @throws {InvalidInputError} naming the field when a key or digest is malformed
 */
export function compositeSeal(baselineKeyHashes: Readonly<Record<string, HexDigest>>): HexDigest {
  const parsed = acceptsAsciiMap(baselineKeyHashes, isHexDigest)
    ? baselineKeyHashes
    : parseInput(BaselineKeyHashesSchema, baselineKeyHashes, 'baseline key hashes');
  return compositeSealUnchecked(parsed);
}

const BaselineKeyHashesSchema = safeRecord(HexDigestSchema);

/**
 * {@link compositeSeal} for an already validated map: the canonical text of
 * `{ v: 1, baselineKeyHashes }` written directly (`baselineKeyHashes` < `v`).
 */
export function compositeSealUnchecked(baselineKeyHashes: Readonly<Record<string, HexDigest>>): HexDigest {
  return (hashDigestMap(baselineKeyHashes, false, [COMPOSITE_FRAME]) as HashedDigestMap).digests[0] as HexDigest;
}

/**
 * Called by {@link baselineAwaitingDigests} with each member of `baselineKeyHashes` once it is
 * checked (keys in sorted order, each value a 64-character string), so that triage compares the
 * current environment in the same pass; `false` stops the pass (the result is then `null`).
 * `plainKey`: the key passed `isPlainAsciiMapKey` (its JSON text is `"${key}"`), so the visitor
 * need not test it again.
 */
export type BaselineVisitor = (key: string, digest: string, plainKey: boolean) => boolean;

/**
 * What a SHA-256 hashes around the canonical text of a key → digest map: the text before it
 * (domain tag, NUL, the enclosing members up to the map) and after it.
 */
type HashFrame = readonly [before: string, after: string];

/** The composite seal's frame: `"reseal/v1/precondition-seal" NUL {"baselineKeyHashes":` map `,"v":1}`. */
const COMPOSITE_FRAME: HashFrame = [`${HashDomain.COMPOSITE_SEAL}\0{"baselineKeyHashes":`, ',"v":1}'];

/** The digests {@link hashDigestMap} took, one per frame, and the map's number of keys. */
interface HashedDigestMap {
  readonly digests: HexDigest[];
  readonly size: number;
}

/**
 * Members written before the text so far is handed to the hashes: the text of a large map is
 * never held whole (100,000 keys make 8.6 MB, whose rope of concatenations the garbage collector
 * copied; hashing it in pieces of about 22 kB halved the cost per key at that size). A map of
 * fewer members is hashed in one call per frame.
 */
const MEMBERS_PER_UPDATE = 256;

/**
 * SHA-256 of the RFC 8785 text of a key → hex digest map inside each frame, in one pass over the
 * map: `canonicalStringMap` with the digests written as they are (lowercase hex needs no
 * escaping, RFC 8785 §3.2.2.2), hashed as it is written. With `check`, the map is first taken
 * for untrusted: `null` unless it is a plain object whose keys are printable-ASCII map keys and
 * whose values are 64-character strings (the hex pattern is left to the caller); `visit` sees each
 * member written, and stops the pass with `false` (then `null`). Pieces end at a
 * member boundary, so their UTF-8 bytes (a key may be any well-formed text) are those of the
 * whole text.
 */
function hashDigestMap(
  map: unknown,
  check: boolean,
  frames: readonly HashFrame[],
  visit?: BaselineVisitor,
): HashedDigestMap | null {
  if (check && !isPlainRecord(map)) return null;
  const record = map as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = (keys[i - 1] as string) < (keys[i] as string);
  if (!sorted) keys.sort();
  let hashes: Hash[] | null = null;
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const value = record[key];
    if (check && (typeof value !== 'string' || value.length !== 64)) return null;
    const plainKey = isPlainAsciiMapKey(key);
    if (plainKey) text += `${i === 0 ? '' : ','}"${key}":"${value}"`;
    else if (check && !isAsciiMapKey(key)) return null;
    else text += `${i === 0 ? '' : ','}${canonicalString(key)}:"${value}"`;
    if (visit !== undefined && !visit(key, value as string, plainKey)) return null;
    if (i % MEMBERS_PER_UPDATE === MEMBERS_PER_UPDATE - 1) {
      hashes ??= frames.map(([before]) => createHash('sha256').update(before));
      for (const sha of hashes) sha.update(text);
      text = '';
    }
  }
  text += '}';
  const digests =
    hashes === null
      ? frames.map(([before, after]) => hash('sha256', `${before}${text}${after}`, 'hex'))
      : hashes.map((sha, j) =>
          sha
            .update(text)
            .update((frames[j] as HashFrame)[1])
            .digest('hex'),
        );
  return { digests, size: keys.length };
}

/**
 * Digest of a whole manifest, named by the record header as `manifestDigest`.
 *
 * `SHA-256("reseal/v1/manifest" || 0x00 || JCS(manifest))`, the manifest exactly as
 * {@link SealedDependencyManifestSchema} parses it (it carries `formatVersion`).
 *
 * @throws {InvalidInputError} when `manifest` does not match the schema
 */
export function manifestDigest(manifest: unknown): HexDigest {
  return manifestDigestOf(parseManifest(manifest));
}

/** {@link manifestDigest} of a manifest already validated (no second validation). */
export function manifestDigestOf(manifest: Validated<SealedDependencyManifest>): HexDigest {
  return (hashDigestMap(manifest.baselineKeyHashes, false, [manifestFrame(manifest)]) as HashedDigestMap)
    .digests[0] as HexDigest;
}

/**
 * The two digests a manifest's `baselineKeyHashes` goes into, from one pass over it:
 * {@link compositeSeal} of `baselineKeyHashes` (to compare with `preconditionSeal`) and
 * {@link manifestDigest}, each piece of the map's canonical text hashed into both. The
 * manifest's canonical text is written member by member in RFC 8785 order (`absentKeys` <
 * `baselineKeyHashes` < `claimDependencyMap` < `formatVersion` < `preconditionSeal` <
 * `structuralKeys`), the same bytes `canonicalJson(manifest)` gives.
 */
export function manifestDigests(manifest: Validated<SealedDependencyManifest>): {
  compositeSeal: HexDigest;
  manifestDigest: HexDigest;
} {
  const [compositeSeal, manifestDigest] = (
    hashDigestMap(manifest.baselineKeyHashes, false, [COMPOSITE_FRAME, manifestFrame(manifest)]) as HashedDigestMap
  ).digests as [HexDigest, HexDigest];
  return { compositeSeal, manifestDigest };
}

/**
 * The {@link manifestDigest} frame of a validated manifest: the domain tag, NUL and the
 * manifest's canonical text before and after the canonical text of its `baselineKeyHashes`.
 */
function manifestFrame(manifest: SealedDependencyManifest): HashFrame {
  const absent =
    manifest.formatVersion === ManifestFormatVersion.V2 ? `"absentKeys":${canonicalJson(manifest.absentKeys)},` : '';
  return [
    `${HashDomain.MANIFEST}\0{${absent}"baselineKeyHashes":`,
    `,"claimDependencyMap":${canonicalJson(manifest.claimDependencyMap)},"formatVersion":${manifest.formatVersion},"preconditionSeal":"${manifest.preconditionSeal}","structuralKeys":${canonicalJson(manifest.structuralKeys)}}`,
  ];
}

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

const BuildManifestInput = z.strictObject({
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

/**
 * Builds the sealed dependency manifest of a record at write time (docs/triage.md, "The four recorded elements").
 *
 * Hashes every key of `env` with {@link envKeyHash}, seals them with {@link compositeSeal},
 * and stores structural keys and each claim's causal keys sorted and de-duplicated. Keys
 * declared absent (`structuralAbsentKeys`, a claim's `absentKeys`) join the structural keys or
 * the claim's causal keys and are listed in `absentKeys`; the manifest is format 2 when there is
 * at least one, else format 1, byte for byte what it was before absent keys existed
 * (docs/triage.md, "Keys declared absent").
 *
 * @throws {InvalidInputError} naming each bad field: a malformed env, key or claim id
 *   (`__proto__`, NFC/NFD collision, lone surrogate, control character), a structural key
 *   absent from `env` (`structuralKeys.<i>`), a causal key absent from `env`
 *   (`claimDependencyMap.<claimId>.<i>`), a key declared absent that is in `env` (or whose other
 *   Unicode normal form is) or is `__proto__` (`structuralAbsentKeys.<i>`,
 *   `claimDependencyMap.<claimId>.absentKeys.<i>`), a repeated claim id, a claim with no key.
 * @example
 * buildManifest({ env: { ARCH: 'arm64', HOST: 'h1' }, structuralKeys: ['ARCH'],
 *   claimDependencyMap: { 'claim-1': ['ARCH'], 'no-proxy': { absentKeys: ['HTTP_PROXY'] } } })
 */
export function buildManifest(input: BuildManifestInput): SealedDependencyManifest {
  const parsed = parseInput(BuildManifestInput, input, 'manifest input');
  const { env } = parsed;
  // Built on the first absent declaration only: most manifests declare none.
  let presentIndex: NormalFormIndex<string> | undefined;
  const conflictOf = (key: string) => {
    presentIndex ??= presenceIndex(Object.keys(env));
    return presenceConflict(key, presentIndex, 'env');
  };
  const issues: InputIssue[] = [];

  parsed.structuralKeys.forEach((key, i) => {
    if (!Object.hasOwn(env, key)) {
      issues.push({ path: `structuralKeys.${i}`, message: `structural key ${JSON.stringify(key)} is not in env` });
    }
  });
  const structuralAbsentKeys = parsed.structuralAbsentKeys ?? [];
  structuralAbsentKeys.forEach((key, i) => {
    const conflict = conflictOf(key);
    if (conflict !== null) {
      issues.push({ path: `structuralAbsentKeys.${i}`, message: `structural key ${JSON.stringify(key)} ${conflict}` });
    }
  });

  const listForm = Array.isArray(parsed.claimDependencyMap);
  const entries: ClaimEntry[] = Array.isArray(parsed.claimDependencyMap)
    ? parsed.claimDependencyMap.map((c, index) => ({
        claimId: c.claimId,
        at: `claimDependencyMap.${index}`,
        causal: c.causalKeys,
        causalAt: 'causalKeys.',
        absent: c.absentKeys ?? [],
        emptyAt: 'causalKeys',
      }))
    : Object.entries(parsed.claimDependencyMap).map(([claimId, keys]) =>
        Array.isArray(keys)
          ? { claimId, at: `claimDependencyMap.${claimId}`, causal: keys, causalAt: '', absent: [], emptyAt: '' }
          : {
              claimId,
              at: `claimDependencyMap.${claimId}`,
              causal: keys.causalKeys ?? [],
              causalAt: 'causalKeys.',
              absent: keys.absentKeys ?? [],
              emptyAt: '',
            },
      );
  const seenClaims = new NormalFormIndex<string>();
  const claimDependencyMap: Record<string, string[]> = {};
  const absentKeys: string[] = [...structuralAbsentKeys];
  for (const { claimId, at, causal, causalAt, absent, emptyAt } of entries) {
    const previous = seenClaims.claim(claimId, claimId);
    if (previous !== undefined) {
      issues.push({
        path: listForm ? `${at}.claimId` : at,
        message:
          previous === claimId
            ? `claim id ${JSON.stringify(claimId)} is repeated`
            : `claim ids ${JSON.stringify(previous)} and ${JSON.stringify(claimId)} are the same text in different Unicode normal forms`,
      });
      continue;
    }
    if (causal.length + absent.length === 0) {
      issues.push({
        path: emptyAt === '' ? at : `${at}.${emptyAt}`,
        message: 'a claim must name at least one causal key',
      });
    }
    causal.forEach((key, i) => {
      if (!Object.hasOwn(env, key)) {
        issues.push({
          path: `${at}.${causalAt}${i}`,
          message: `causal key ${JSON.stringify(key)} of claim ${JSON.stringify(claimId)} is not in env`,
        });
      }
    });
    absent.forEach((key, i) => {
      const conflict = conflictOf(key);
      if (conflict !== null) {
        issues.push({
          path: `${at}.absentKeys.${i}`,
          message: `causal key ${JSON.stringify(key)} of claim ${JSON.stringify(claimId)} ${conflict}`,
        });
      }
    });
    absentKeys.push(...absent);
    claimDependencyMap[claimId] = sortedUnique([...causal, ...absent]);
  }
  if (issues.length > 0) throw new InvalidInputError('manifest input', issues);

  const baselineKeyHashes: Record<string, HexDigest> = {};
  for (const key of Object.keys(env).sort()) {
    baselineKeyHashes[key] = envKeyHashUnchecked(key, env[key] as string);
  }
  const preconditionSeal = compositeSealUnchecked(baselineKeyHashes);
  const structuralKeys = sortedUnique([...parsed.structuralKeys, ...structuralAbsentKeys]);
  const claims = sortKeys(claimDependencyMap);
  if (absentKeys.length === 0) {
    return {
      formatVersion: ManifestFormatVersion.V1,
      preconditionSeal,
      baselineKeyHashes,
      structuralKeys,
      claimDependencyMap: claims,
    };
  }
  return {
    formatVersion: ManifestFormatVersion.V2,
    preconditionSeal,
    baselineKeyHashes,
    absentKeys: sortedUnique(absentKeys),
    structuralKeys,
    claimDependencyMap: claims,
  };
}

/** One claim of the build input, with where its fields are for error paths. */
interface ClaimEntry {
  readonly claimId: string;
  /** Path of the claim (`claimDependencyMap.<claimId>` or `claimDependencyMap.<n>`). */
  readonly at: string;
  readonly causal: readonly string[];
  /** Prefix of a causal key's index under `at` (`causalKeys.` or `` for a bare list). */
  readonly causalAt: string;
  readonly absent: readonly string[];
  /** Where an empty claim is reported under `at` (`causalKeys` in list form, `` otherwise). */
  readonly emptyAt: string;
}

/** Present keys by their NFC form, to refuse a declared-absent key that is present in another spelling. */
function presenceIndex(keys: readonly string[]): NormalFormIndex<string> {
  const index = new NormalFormIndex<string>();
  for (const key of keys) index.set(key, key);
  return index;
}

/**
 * Why `key` cannot be declared absent given the keys present in `where`, or `null`: it is
 * present, its other Unicode normal form is (a writer and a reader could then disagree on whether
 * it appeared), or it is `__proto__`, which no environment may hold.
 */
function presenceConflict(key: string, present: NormalFormIndex<string>, where: string): string | null {
  if (key === RESERVED_KEY) return 'is reserved and refused (no environment may hold it)';
  const match = present.find(key);
  if (match === undefined) return null;
  return match === key
    ? `is declared absent but is in ${where}`
    : `is declared absent but ${where} holds ${JSON.stringify(match)}, the same text in another Unicode normal form`;
}

/** Sorted (UTF-16 code-unit order, the order RFC 8785 uses) and de-duplicated copy. */
export function sortedUnique(keys: readonly string[]): string[] {
  return [...new Set(keys)].sort();
}

function sortKeys<V>(record: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key] as V;
  return out;
}
