import { describe, expect, it } from 'vitest';
import { HashDomain, hashCanonical } from '../../../../shared/canonical/digest';
import { InvalidInputError } from '../../../../shared/errors';
import {
  buildManifest,
  compositeSeal,
  envKeyHash,
  manifestDigest,
  SealedDependencyManifestSchema,
  sortedUnique,
} from '../../../../shared/triage/manifest';

const issuesOf = (fn: () => unknown): { path: string; message: string }[] => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return [...(error as InvalidInputError).issues];
  }
  throw new Error('expected an InvalidInputError');
};

describe('envKeyHash', () => {
  it('seed 000 Recorded Element 1: hashes { v: 1, key, value } under the env-key domain', () => {
    expect(envKeyHash('ARCH', 'arm64')).toBe(hashCanonical(HashDomain.ENV_KEY, { v: 1, key: 'ARCH', value: 'arm64' }));
    expect(envKeyHash('ARCH', 'arm64')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('binds the key: one value under two keys hashes differently', () => {
    expect(envKeyHash('A', 'same')).not.toBe(envKeyHash('B', 'same'));
  });

  it('refuses hostile keys and values, naming the field', () => {
    expect(issuesOf(() => envKeyHash('__proto__', 'x'))[0]?.path).toBe('key');
    expect(issuesOf(() => envKeyHash('', 'x'))[0]?.path).toBe('key');
    expect(issuesOf(() => envKeyHash('A\u0007', 'x'))[0]?.path).toBe('key');
    expect(issuesOf(() => envKeyHash('A', '\ud83d'))[0]?.path).toBe('value');
  });
});

describe('compositeSeal', () => {
  const a = envKeyHash('A', '1');
  const b = envKeyHash('B', '2');

  it('seed 000 Recorded Element 1: covers every key hash, independent of insertion order', () => {
    expect(compositeSeal({ A: a, B: b })).toBe(compositeSeal({ B: b, A: a }));
    expect(compositeSeal({ A: a, B: b })).toBe(
      hashCanonical(HashDomain.COMPOSITE_SEAL, { v: 1, baselineKeyHashes: { A: a, B: b } }),
    );
  });

  it('changes when a key is added, removed or re-hashed', () => {
    const base = compositeSeal({ A: a, B: b });
    expect(compositeSeal({ A: a })).not.toBe(base);
    expect(compositeSeal({ A: a, B: b, C: a })).not.toBe(base);
    expect(compositeSeal({ A: b, B: b })).not.toBe(base);
  });

  it('refuses a malformed digest, naming the key', () => {
    expect(issuesOf(() => compositeSeal({ A: 'xyz' }))[0]?.path).toBe('A');
  });
});

describe('buildManifest', () => {
  const env = { ARCH: 'arm64', HOST: 'h1', PKG: '1.2.3', SCHEMA: '7' };

  it('seed 000 Recorded Elements 1–3: records key hashes, sorted structural keys and sorted causal keys', () => {
    const m = buildManifest({
      env,
      structuralKeys: ['SCHEMA', 'ARCH', 'ARCH'],
      claimDependencyMap: { z: ['PKG', 'ARCH', 'PKG'], a: ['SCHEMA'] },
    });
    expect(SealedDependencyManifestSchema.parse(m)).toEqual(m);
    expect(Object.keys(m.baselineKeyHashes)).toEqual(['ARCH', 'HOST', 'PKG', 'SCHEMA']);
    expect(m.baselineKeyHashes.HOST).toBe(envKeyHash('HOST', 'h1'));
    expect(m.preconditionSeal).toBe(compositeSeal(m.baselineKeyHashes));
    expect(m.structuralKeys).toEqual(['ARCH', 'SCHEMA']);
    expect(m.claimDependencyMap).toEqual({ a: ['SCHEMA'], z: ['ARCH', 'PKG'] });
    expect(Object.keys(m.claimDependencyMap)).toEqual(['a', 'z']);
  });

  it('accepts the claim map as a list of { claimId, causalKeys } pairs with the same result', () => {
    const fromMap = buildManifest({ env, structuralKeys: [], claimDependencyMap: { c1: ['PKG'], c2: ['HOST'] } });
    const fromList = buildManifest({
      env,
      structuralKeys: [],
      claimDependencyMap: [
        { claimId: 'c2', causalKeys: ['HOST'] },
        { claimId: 'c1', causalKeys: ['PKG'] },
      ],
    });
    expect(fromList).toEqual(fromMap);
  });

  it('refuses a structural key absent from env, naming its index', () => {
    const issues = issuesOf(() => buildManifest({ env, structuralKeys: ['ARCH', 'GPU'], claimDependencyMap: {} }));
    expect(issues).toEqual([{ path: 'structuralKeys.1', message: 'structural key "GPU" is not in env' }]);
  });

  it('refuses a causal key absent from env, naming the claim and index (map and list forms)', () => {
    expect(
      issuesOf(() => buildManifest({ env, structuralKeys: [], claimDependencyMap: { c: ['PKG', 'X'] } }))[0]?.path,
    ).toBe('claimDependencyMap.c.1');
    expect(
      issuesOf(() =>
        buildManifest({ env, structuralKeys: [], claimDependencyMap: [{ claimId: 'c', causalKeys: ['X'] }] }),
      )[0]?.path,
    ).toBe('claimDependencyMap.0.causalKeys.0');
  });

  it('refuses a repeated claim id and NFC/NFD spellings of one claim id', () => {
    const repeated = issuesOf(() =>
      buildManifest({
        env,
        structuralKeys: [],
        claimDependencyMap: [
          { claimId: 'c', causalKeys: ['PKG'] },
          { claimId: 'c', causalKeys: ['HOST'] },
        ],
      }),
    );
    expect(repeated[0]).toEqual({ path: 'claimDependencyMap.1.claimId', message: 'claim id "c" is repeated' });
    const normalForms = issuesOf(() =>
      buildManifest({
        env,
        structuralKeys: [],
        claimDependencyMap: [
          { claimId: 'caf\u00e9', causalKeys: ['PKG'] },
          { claimId: 'cafe\u0301', causalKeys: ['HOST'] },
        ],
      }),
    );
    expect(normalForms[0]?.message).toMatch(/different Unicode normal forms/);
  });

  it('refuses a claim with no causal key', () => {
    expect(issuesOf(() => buildManifest({ env, structuralKeys: [], claimDependencyMap: { c: [] } }))[0]?.path).toBe(
      'claimDependencyMap.c',
    );
  });

  it('refuses hostile env keys: __proto__, NFC/NFD variants, lone surrogates, control characters', () => {
    const build = (e: unknown) => () =>
      buildManifest({ env: e as Record<string, string>, structuralKeys: [], claimDependencyMap: {} });
    expect(issuesOf(build(JSON.parse('{"__proto__":"x"}')))[0]?.message).toMatch(/reserved/);
    expect(issuesOf(build({ 'caf\u00e9': '1', 'cafe\u0301': '2' }))[0]?.message).toMatch(/normal forms/);
    expect(issuesOf(build({ K: 'a\udfff' }))[0]?.path).toBe('env.K');
    // zod reports a bad record key as "Invalid key in record" at the key's path; the detail
    // ("key holds a control character") is kept in the error's cause.
    expect(issuesOf(build({ 'K\u0000': 'v' }))[0]?.path).toBe('env.K\u0000');
  });

  it('refuses unknown fields in its input (strict)', () => {
    const withExtra = { env: {}, structuralKeys: [], claimDependencyMap: {}, extra: 1 };
    expect(issuesOf(() => buildManifest(withExtra))[0]?.message).toMatch(/extra/);
  });

  it('accepts an empty environment (the seed fail-closed case is expressible)', () => {
    const m = buildManifest({ env: {}, structuralKeys: [], claimDependencyMap: {} });
    expect(m.baselineKeyHashes).toEqual({});
    expect(m.preconditionSeal).toBe(compositeSeal({}));
  });
});

describe('manifestDigest', () => {
  const m = buildManifest({ env: { A: '1', B: '2' }, structuralKeys: ['A'], claimDependencyMap: { c: ['B'] } });

  it('hashes the parsed manifest under the manifest domain, independent of member order', () => {
    expect(manifestDigest(m)).toBe(hashCanonical(HashDomain.MANIFEST, m));
    const reordered = {
      claimDependencyMap: m.claimDependencyMap,
      structuralKeys: m.structuralKeys,
      baselineKeyHashes: m.baselineKeyHashes,
      preconditionSeal: m.preconditionSeal,
      formatVersion: 1,
    };
    expect(manifestDigest(reordered)).toBe(manifestDigest(m));
  });

  it('differs from the composite seal even though both cover the key hashes (domain separation)', () => {
    expect(manifestDigest(m)).not.toBe(m.preconditionSeal);
  });

  it('refuses a manifest that is not one, naming the field', () => {
    expect(issuesOf(() => manifestDigest({ ...m, structuralKeys: 'A' }))[0]?.path).toBe('structuralKeys');
  });
});

describe('sortedUnique', () => {
  it('sorts by UTF-16 code units (the RFC 8785 order) and removes repeats', () => {
    expect(sortedUnique(['b', '\u00e9', 'a', 'B', 'b', '\ud83d\ude00', '\ufb33'])).toEqual([
      'B',
      'a',
      'b',
      '\u00e9',
      '\ud83d\ude00',
      '\ufb33',
    ]);
  });
});
