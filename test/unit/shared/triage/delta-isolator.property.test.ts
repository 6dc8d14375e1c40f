import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import { DeltaVerdict } from '../../../../shared/triage/delta-isolation-report';
import { isolateDelta } from '../../../../shared/triage/isolate-delta';
import { triageReportDigest } from '../../../../shared/triage/triage-report-digest';

// Small key alphabet so claims share keys often; values include non-ASCII text.
const keyArb = fc.stringMatching(/^[A-F][A-F0-9_]{0,3}$/);
const valueArb = fc.string({ unit: 'grapheme', maxLength: 8 });

/** An environment, a structural subset of it, and claims whose causal keys are drawn from it. */
const recordArb = fc.dictionary(keyArb, valueArb, { minKeys: 1, maxKeys: 16 }).chain((env) => {
  const keys = Object.keys(env);
  return fc.record({
    env: fc.constant(env),
    structuralKeys: fc.subarray(keys, { maxLength: Math.min(3, keys.length) }),
    claimDependencyMap: fc.dictionary(
      fc.stringMatching(/^claim-[a-z0-9]{1,4}$/),
      fc.subarray(keys, { minLength: 1, maxLength: Math.min(4, keys.length) }),
      { maxKeys: 8 },
    ),
  });
});

const sorted = (xs: readonly string[]) => [...xs].sort();
const isSorted = (xs: readonly string[]) => xs.every((x, i) => i === 0 || (xs[i - 1] as string) < x);

const shuffled = <T>(xs: readonly T[], seed: number): T[] => {
  const out = [...xs];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};

describe('isolateDelta properties (fast-check)', () => {
  it('docs/triage.md rule 7: one changed non-structural key invalidates exactly the claims whose causal keys contain it', () => {
    fc.assert(
      fc.property(recordArb, fc.nat(), fc.string({ maxLength: 6 }), (record, pick, suffix) => {
        const candidates = Object.keys(record.env).filter((k) => !record.structuralKeys.includes(k));
        fc.pre(candidates.length > 0);
        const key = candidates[pick % candidates.length] as string;
        const current = { ...record.env, [key]: `${record.env[key]}~${suffix}` };
        const report = isolateDelta(buildManifest(record), current);
        const expected = sorted(
          Object.entries(record.claimDependencyMap)
            .filter(([, causal]) => causal.includes(key))
            .map(([claimId]) => claimId),
        );
        const claimCount = Object.keys(record.claimDependencyMap).length;
        expect(report.driftedKeys).toEqual({ changed: [key], vanished: [], appeared: [] });
        expect(report.structuralDrift).toEqual([]);
        if (claimCount === 0) {
          expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
          return;
        }
        expect(report.invalidatedClaims).toEqual(expected);
        const verdict =
          expected.length === 0
            ? DeltaVerdict.AMBIENT_DRIFT_ONLY
            : expected.length === claimCount
              ? DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED
              : DeltaVerdict.PARTIAL_REPROBE_REQUIRED;
        expect(report.verdict).toBe(verdict);
        if (verdict !== DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED) {
          expect(sorted([...report.retainedClaims, ...report.invalidatedClaims])).toEqual(
            sorted(Object.keys(record.claimDependencyMap)),
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it('hardening: NO_DRIFT if and only if the current environment equals the baseline', () => {
    const mutation = fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('change' as const), pick: fc.nat(), value: valueArb }),
      fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('add' as const), key: keyArb, value: valueArb }),
    );
    fc.assert(
      fc.property(recordArb, mutation, (record, mut) => {
        const current: Record<string, string> = { ...record.env };
        const keys = Object.keys(current);
        if (mut.kind === 'change') current[keys[mut.pick % keys.length] as string] = mut.value;
        if (mut.kind === 'drop') delete current[keys[mut.pick % keys.length] as string];
        if (mut.kind === 'add') current[mut.key] = mut.value;
        const unchanged =
          Object.keys(current).length === keys.length &&
          keys.every((k) => Object.hasOwn(current, k) && current[k] === record.env[k]);
        const report = isolateDelta(buildManifest(record), current);
        expect(report.verdict === DeltaVerdict.NO_DRIFT).toBe(unchanged);
        expect(report.sealIntact).toBe(unchanged);
      }),
      { numRuns: 200 },
    );
  });

  it('report arrays are sorted and digests are stable across key orders and runs', () => {
    fc.assert(
      fc.property(recordArb, fc.dictionary(keyArb, valueArb, { maxKeys: 6 }), fc.nat(), (record, noise, seed) => {
        const current = { ...record.env, ...noise };
        const first = isolateDelta(buildManifest(record), current);
        const reorder = <V>(obj: Record<string, V>) => Object.fromEntries(shuffled(Object.entries(obj), seed));
        const manifestReordered = buildManifest({
          env: reorder(record.env),
          structuralKeys: shuffled(record.structuralKeys, seed + 1),
          claimDependencyMap: Object.fromEntries(
            shuffled(Object.entries(record.claimDependencyMap), seed + 2).map(([c, ks]) => [c, shuffled(ks, seed + 3)]),
          ),
        });
        const second = isolateDelta(manifestReordered, reorder(current));
        expect(second).toEqual(first);
        expect(triageReportDigest(second)).toBe(triageReportDigest(first));
        for (const list of [
          first.driftedKeys.changed,
          first.driftedKeys.vanished,
          first.driftedKeys.appeared,
          first.structuralDrift,
          first.unattributedKeys,
          first.retainedClaims,
          first.invalidatedClaims,
        ]) {
          expect(isSorted(list)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});

// Keys declared absent come from their own alphabet, so they are never in the baseline env.
const absentKeyArb = fc.stringMatching(/^[G-K][A-F0-9_]{0,3}$/);
// Keys no manifest declares or holds.
const strangerKeyArb = fc.stringMatching(/^[L-P][A-F0-9_]{0,3}$/);

/**
 * An environment, structural keys (present and declared absent) and claims resting on present
 * and declared-absent keys, drawn from a pool of absent keys of which some are declared by no one.
 */
const recordWithAbsentArb = fc
  .record({
    env: fc.dictionary(keyArb, valueArb, { minKeys: 1, maxKeys: 12 }),
    pool: fc.uniqueArray(absentKeyArb, { minLength: 1, maxLength: 6 }),
  })
  .chain(({ env, pool }) => {
    const keys = Object.keys(env);
    return fc.record({
      env: fc.constant(env),
      pool: fc.constant(pool),
      structuralKeys: fc.subarray(keys, { maxLength: Math.min(2, keys.length) }),
      structuralAbsentKeys: fc.subarray(pool, { maxLength: Math.min(2, pool.length) }),
      claimDependencyMap: fc.dictionary(
        fc.stringMatching(/^claim-[a-z0-9]{1,4}$/),
        fc
          .record({
            causalKeys: fc.subarray(keys, { maxLength: Math.min(3, keys.length) }),
            absentKeys: fc.subarray(pool, { maxLength: Math.min(3, pool.length) }),
          })
          .filter((c) => c.causalKeys.length + c.absentKeys.length > 0),
        { maxKeys: 8 },
      ),
    });
  });

type RecordWithAbsent = typeof recordWithAbsentArb extends fc.Arbitrary<infer R> ? R : never;
const manifestOf = ({ pool: _, ...input }: RecordWithAbsent) => buildManifest(input);
const declaredByClaims = (record: RecordWithAbsent) =>
  new Set(Object.values(record.claimDependencyMap).flatMap((c) => c.absentKeys));

describe('isolateDelta properties with keys declared absent (fast-check)', () => {
  it('the manifest is format 2 exactly when some key is declared absent', () => {
    fc.assert(
      fc.property(recordWithAbsentArb, (record) => {
        const declared = record.structuralAbsentKeys.length > 0 || declaredByClaims(record).size > 0;
        expect(manifestOf(record).formatVersion).toBe(declared ? 2 : 1);
      }),
      { numRuns: 100 },
    );
  });

  it('keys declared absent that appear invalidate exactly the claims that name them; undeclared ones none', () => {
    fc.assert(
      fc.property(recordWithAbsentArb, fc.nat(), valueArb, (record, mask, value) => {
        // Any subset of the pool except the structural declarations: declared by claims or by no one.
        const appearing = record.pool.filter((k, i) => (mask >> i) & 1 && !record.structuralAbsentKeys.includes(k));
        fc.pre(appearing.length > 0);
        const current = { ...record.env, ...Object.fromEntries(appearing.map((k) => [k, value])) };
        const report = isolateDelta(manifestOf(record), current);
        const expected = sorted(
          Object.entries(record.claimDependencyMap)
            .filter(([, c]) => c.absentKeys.some((k) => appearing.includes(k)))
            .map(([claimId]) => claimId),
        );
        const claimCount = Object.keys(record.claimDependencyMap).length;
        expect(report.driftedKeys).toEqual({ changed: [], vanished: [], appeared: sorted(appearing) });
        expect(report.structuralDrift).toEqual([]);
        expect(report.unattributedKeys).toEqual([]);
        if (claimCount === 0) {
          expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
          return;
        }
        expect(report.invalidatedClaims).toEqual(expected);
        expect(report.verdict).toBe(
          expected.length === 0
            ? DeltaVerdict.AMBIENT_DRIFT_ONLY
            : expected.length === claimCount
              ? DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED
              : DeltaVerdict.PARTIAL_REPROBE_REQUIRED,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('a key nobody declared absent that appears invalidates no claim', () => {
    fc.assert(
      fc.property(
        recordWithAbsentArb,
        fc.dictionary(strangerKeyArb, valueArb, { minKeys: 1, maxKeys: 4 }),
        (r, extra) => {
          const report = isolateDelta(manifestOf(r), { ...r.env, ...extra });
          const claimCount = Object.keys(r.claimDependencyMap).length;
          expect(report.driftedKeys.appeared).toEqual(sorted(Object.keys(extra)));
          expect(report.verdict).toBe(
            claimCount === 0 ? DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED : DeltaVerdict.AMBIENT_DRIFT_ONLY,
          );
          expect(report.invalidatedClaims).toEqual([]);
          expect(report.retainedClaims).toEqual(claimCount === 0 ? [] : sorted(Object.keys(r.claimDependencyMap)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('NO_DRIFT if and only if nothing changed, declared-absent keys appearing included', () => {
    const mutation = fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('change' as const), pick: fc.nat(), value: valueArb }),
      fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('appear' as const), pick: fc.nat(), value: valueArb }),
      fc.record({ kind: fc.constant('add' as const), key: fc.oneof(keyArb, strangerKeyArb), value: valueArb }),
    );
    fc.assert(
      fc.property(recordWithAbsentArb, mutation, (record, mut) => {
        const current: Record<string, string> = { ...record.env };
        const keys = Object.keys(current);
        if (mut.kind === 'change') current[keys[mut.pick % keys.length] as string] = mut.value;
        if (mut.kind === 'drop') delete current[keys[mut.pick % keys.length] as string];
        if (mut.kind === 'appear') current[record.pool[mut.pick % record.pool.length] as string] = mut.value;
        if (mut.kind === 'add') current[mut.key] = mut.value;
        const unchanged =
          Object.keys(current).length === keys.length &&
          keys.every((k) => Object.hasOwn(current, k) && current[k] === record.env[k]);
        const report = isolateDelta(manifestOf(record), current);
        expect(report.verdict === DeltaVerdict.NO_DRIFT).toBe(unchanged);
        expect(report.sealIntact).toBe(unchanged);
      }),
      { numRuns: 200 },
    );
  });

  it('a structural key declared absent that appears is FULL_RECONSTRUCTION_REQUIRED, whatever else appears', () => {
    fc.assert(
      fc.property(recordWithAbsentArb, fc.nat(), fc.nat(), valueArb, (record, pick, mask, value) => {
        fc.pre(record.structuralAbsentKeys.length > 0);
        const key = record.structuralAbsentKeys[pick % record.structuralAbsentKeys.length] as string;
        const others = record.pool.filter((_, i) => (mask >> i) & 1);
        const current = { ...record.env, [key]: value, ...Object.fromEntries(others.map((k) => [k, value])) };
        const report = isolateDelta(manifestOf(record), current);
        expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
        // Without a claim map, rule 4 fails closed before structural drift is looked at.
        if (Object.keys(record.claimDependencyMap).length > 0) expect(report.structuralDrift).toContain(key);
        expect(report.retainedClaims).toEqual([]);
        expect(report.invalidatedClaims).toEqual(sorted(Object.keys(record.claimDependencyMap)));
      }),
      { numRuns: 200 },
    );
  });
});

// Keys with a letter that has two Unicode normal forms (NFC `é`, NFD `e\u0301`), outside every other alphabet.
const composedKeyArb = fc
  .tuple(fc.constantFrom('é', 'ñ', 'Å', 'ö', 'ǘ'), fc.stringMatching(/^[A-F0-9_]{0,3}$/))
  .map(([letter, rest]) => `Q${letter}${rest}`.normalize('NFC'));

describe('isolateDelta: a declared-absent key that appears in its other Unicode normal form (fast-check)', () => {
  it('is drift on whoever rests on the absence, exactly as the declared form would be', () => {
    fc.assert(
      fc.property(
        recordArb,
        fc.uniqueArray(composedKeyArb, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        valueArb,
        (record, nfcKeys, declareNfd, structural, value) => {
          const declared = nfcKeys.map((k) => (declareNfd ? k.normalize('NFD') : k));
          const appearing = nfcKeys.map((k) => (declareNfd ? k : k.normalize('NFD')));
          const claimIds = Object.keys(record.claimDependencyMap);
          fc.pre(claimIds.length > 1 || structural);
          // The first claim rests on every declared-absent key; the others on none of them.
          const [first] = claimIds;
          const claimDependencyMap = Object.fromEntries(
            Object.entries(record.claimDependencyMap).map(([id, causalKeys]) => [
              id,
              id === first ? { causalKeys, absentKeys: declared } : causalKeys,
            ]),
          );
          const manifest = buildManifest({
            env: record.env,
            structuralKeys: record.structuralKeys,
            ...(structural ? { structuralAbsentKeys: declared } : {}),
            claimDependencyMap,
          });
          const current = { ...record.env, ...Object.fromEntries(appearing.map((k) => [k, value])) };
          const report = isolateDelta(manifest, current);
          expect(report.driftedKeys.appeared).toEqual(sorted(appearing));
          expect(report.verdict).not.toBe(DeltaVerdict.AMBIENT_DRIFT_ONLY);
          expect(report.verdict).not.toBe(DeltaVerdict.NO_DRIFT);
          if (claimIds.length === 0) return;
          if (structural) {
            expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
            expect(report.structuralDrift).toEqual(sorted(declared));
          }
          if (first !== undefined) expect(report.invalidatedClaims).toContain(first);
          expect(report.retainedClaims).not.toContain(first);
        },
      ),
      { numRuns: 200 },
    );
  });
});
