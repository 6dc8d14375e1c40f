import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeltaVerdict, isolateDelta, triageReportDigest } from '../../../../shared/triage/delta-isolator';
import { buildManifest } from '../../../../shared/triage/manifest';

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
  it('seed 000 Method 3: one changed non-structural key invalidates exactly the claims whose causal keys contain it', () => {
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
