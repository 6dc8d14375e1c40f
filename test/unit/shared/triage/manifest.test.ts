import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../../../shared/canonical/hash-canonical';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { InvalidInputError } from '../../../../shared/errors';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import { compositeSeal } from '../../../../shared/triage/composite-seal';
import { declaredAbsentKeys } from '../../../../shared/triage/declared-absent-keys';
import { envKeyHash } from '../../../../shared/triage/env-key-hash';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import { MANIFEST_FORMAT_VERSION, ManifestFormatVersion } from '../../../../shared/triage/manifest-format-version';
import { SealedDependencyManifestSchema } from '../../../../shared/triage/sealed-dependency-manifest';
import { sortedUnique } from '../../../../shared/triage/sorted-unique-keys';

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
  it('docs/canonical-form.md "Tags and input objects": hashes { v: 1, key, value } under the env-key domain', () => {
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

  it('docs/canonical-form.md "Tags and input objects": covers every key hash, independent of insertion order', () => {
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

  it('docs/triage.md "The four recorded elements": records key hashes, sorted structural keys and sorted causal keys', () => {
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

  it('accepts an empty environment (the fail-closed case of docs/triage.md rule 2 is expressible)', () => {
    const m = buildManifest({ env: {}, structuralKeys: [], claimDependencyMap: {} });
    expect(m.baselineKeyHashes).toEqual({});
    expect(m.preconditionSeal).toBe(compositeSeal({}));
  });
});

describe('buildManifest: keys declared absent (manifest format 2)', () => {
  const env = { ARCH: 'arm64', HOST: 'h1', PKG: '1.2.3' };
  const build = (extra: Partial<Parameters<typeof buildManifest>[0]> = {}) =>
    buildManifest({ env, structuralKeys: ['ARCH'], claimDependencyMap: { c: ['PKG'] }, ...extra });

  it('without an absent key the manifest is format 1, byte for byte what it always was', () => {
    const plain = build();
    expect(plain.formatVersion).toBe(ManifestFormatVersion.V1);
    expect(Object.keys(plain)).toEqual([
      'formatVersion',
      'preconditionSeal',
      'baselineKeyHashes',
      'structuralKeys',
      'claimDependencyMap',
    ]);
    expect(declaredAbsentKeys(plain)).toEqual([]);
    const emptyDeclarations = build({
      structuralAbsentKeys: [],
      claimDependencyMap: { c: { causalKeys: ['PKG'], absentKeys: [] } },
    });
    expect(emptyDeclarations).toEqual(plain);
    expect(manifestDigest(emptyDeclarations)).toBe(manifestDigest(plain));
  });

  it('declared absent keys make a format-2 manifest: absentKeys sorted, joined to structural and causal keys, seal unchanged', () => {
    const m = build({
      structuralAbsentKeys: ['LD_PRELOAD'],
      claimDependencyMap: {
        c: ['PKG'],
        'no-proxy': { absentKeys: ['HTTPS_PROXY', 'HTTP_PROXY', 'HTTP_PROXY'] },
        direct: { causalKeys: ['HOST'], absentKeys: ['HTTP_PROXY'] },
      },
    });
    expect(MANIFEST_FORMAT_VERSION).toBe(2);
    expect(m).toEqual({
      formatVersion: 2,
      preconditionSeal: build().preconditionSeal,
      baselineKeyHashes: build().baselineKeyHashes,
      absentKeys: ['HTTPS_PROXY', 'HTTP_PROXY', 'LD_PRELOAD'],
      structuralKeys: ['ARCH', 'LD_PRELOAD'],
      claimDependencyMap: { c: ['PKG'], direct: ['HOST', 'HTTP_PROXY'], 'no-proxy': ['HTTPS_PROXY', 'HTTP_PROXY'] },
    });
    expect(declaredAbsentKeys(m)).toEqual(['HTTPS_PROXY', 'HTTP_PROXY', 'LD_PRELOAD']);
    expect(SealedDependencyManifestSchema.parse(m)).toEqual(m);
    expect(manifestDigest(m)).toBe(hashCanonical(HashDomain.MANIFEST, m));
    expect(manifestDigest(m)).not.toBe(manifestDigest({ ...m, absentKeys: ['HTTPS_PROXY', 'LD_PRELOAD'] }));
  });

  it('map and list forms declare absent keys alike; a key declared by a claim and as structural is listed once', () => {
    const fromMap = build({
      structuralAbsentKeys: ['HTTP_PROXY'],
      claimDependencyMap: { c: { causalKeys: ['PKG'], absentKeys: ['HTTP_PROXY'] } },
    });
    const fromList = build({
      structuralAbsentKeys: ['HTTP_PROXY'],
      claimDependencyMap: [{ claimId: 'c', causalKeys: ['PKG'], absentKeys: ['HTTP_PROXY'] }],
    });
    expect(fromList).toEqual(fromMap);
    expect(fromMap.formatVersion === 2 && fromMap.absentKeys).toEqual(['HTTP_PROXY']);
  });

  it('refuses a key declared absent that is in env, naming where it was declared (every form)', () => {
    expect(issuesOf(() => build({ structuralAbsentKeys: ['HOST'] }))).toEqual([
      { path: 'structuralAbsentKeys.0', message: 'structural key "HOST" is declared absent but is in env' },
    ]);
    expect(issuesOf(() => build({ claimDependencyMap: { c: { absentKeys: ['X', 'PKG'] } } }))).toEqual([
      {
        path: 'claimDependencyMap.c.absentKeys.1',
        message: 'causal key "PKG" of claim "c" is declared absent but is in env',
      },
    ]);
    expect(
      issuesOf(() => build({ claimDependencyMap: [{ claimId: 'c', causalKeys: [], absentKeys: ['PKG'] }] }))[0]?.path,
    ).toBe('claimDependencyMap.0.absentKeys.0');
  });

  it('refuses a declared-absent key whose other Unicode normal form is in env, and __proto__', () => {
    const nfd = buildManifest.bind(null, {
      env: { 'cafe\u0301': '1' },
      structuralKeys: [],
      claimDependencyMap: { c: { absentKeys: ['caf\u00e9'] } },
    });
    expect(issuesOf(nfd)[0]?.message).toMatch(/another Unicode normal form/);
    expect(issuesOf(() => build({ structuralAbsentKeys: ['__proto__'] }))[0]).toEqual({
      path: 'structuralAbsentKeys.0',
      message: 'structural key "__proto__" is reserved and refused (no environment may hold it)',
    });
  });

  it('a key one claim declares absent is still refused as a plain causal key of another claim', () => {
    const issues = issuesOf(() => build({ claimDependencyMap: { a: { absentKeys: ['GPU'] }, b: ['GPU'] } }));
    expect(issues).toEqual([
      { path: 'claimDependencyMap.b.0', message: 'causal key "GPU" of claim "b" is not in env' },
    ]);
  });

  it('refuses a claim with no key at all and a missing causal key in object and list forms', () => {
    expect(issuesOf(() => build({ claimDependencyMap: { c: {} } }))[0]).toEqual({
      path: 'claimDependencyMap.c',
      message: 'a claim must name at least one causal key',
    });
    expect(issuesOf(() => build({ claimDependencyMap: [{ claimId: 'c', causalKeys: [] }] }))[0]?.path).toBe(
      'claimDependencyMap.0.causalKeys',
    );
    expect(issuesOf(() => build({ claimDependencyMap: { c: { causalKeys: ['NOPE'] } } }))[0]?.path).toBe(
      'claimDependencyMap.c.causalKeys.0',
    );
    const extra = { c: { causalKeys: ['PKG'], optional: ['X'] } } as unknown as Record<string, string[]>;
    expect(issuesOf(() => build({ claimDependencyMap: extra }))[0]?.message).toMatch(/optional/);
  });
});

describe('SealedDependencyManifestSchema: formats 1 and 2', () => {
  const m = buildManifest({
    env: { A: '1', B: '2' },
    structuralKeys: ['A'],
    structuralAbsentKeys: ['S'],
    claimDependencyMap: { c: { causalKeys: ['B'], absentKeys: ['X'] } },
  });
  const pathsOf = (candidate: unknown) =>
    SealedDependencyManifestSchema.safeParse(candidate).error?.issues.map((i) => [i.path.join('.'), i.message]);

  it('accepts the format-2 manifest buildManifest writes', () => {
    expect(m.formatVersion).toBe(2);
    expect(SealedDependencyManifestSchema.parse(m)).toEqual(m);
  });

  it('refuses absentKeys in format 1, a format 2 without (or with empty) absentKeys, and unknown versions', () => {
    const { absentKeys: _, ...rest } = m as Extract<typeof m, { formatVersion: 2 }>;
    expect(pathsOf({ ...m, formatVersion: 1 })).toEqual([['', 'Unrecognized key: "absentKeys"']]);
    expect(pathsOf(rest)?.[0]?.[0]).toBe('absentKeys');
    expect(pathsOf({ ...m, absentKeys: [] })?.[0]?.[1]).toMatch(/at least one absent key/);
    expect(pathsOf({ ...m, formatVersion: 3 })?.[0]?.[0]).toBe('formatVersion');
  });

  it('refuses an absent key that has a baseline key hash (exactly or in another normal form), __proto__, or that nothing names', () => {
    const hashed = { ...m, absentKeys: ['B', 'S', 'X'], claimDependencyMap: { c: ['B', 'X'] } };
    expect(pathsOf(hashed)).toEqual([['absentKeys.0', 'key "B" is declared absent but is in baselineKeyHashes']]);
    const nfc = buildManifest({
      env: { 'cafe\u0301': '1' },
      structuralKeys: [],
      claimDependencyMap: { c: ['cafe\u0301'], d: { absentKeys: ['X'] } },
    });
    const variant = {
      ...nfc,
      absentKeys: ['X', 'caf\u00e9'],
      claimDependencyMap: { c: ['cafe\u0301', 'caf\u00e9'], d: ['X'] },
    };
    expect(pathsOf(variant)?.[0]?.[1]).toMatch(/another Unicode normal form/);
    const proto = { ...m, absentKeys: ['S', 'X', '__proto__'], structuralKeys: ['A', 'S', '__proto__'] };
    expect(pathsOf(proto)).toEqual([
      ['absentKeys.2', 'key "__proto__" is reserved and refused (no environment may hold it)'],
    ]);
    const orphan = { ...m, absentKeys: ['S', 'X', 'Y'] };
    expect(pathsOf(orphan)).toEqual([
      ['absentKeys.2', 'key "Y" is declared absent but no structural key or claim names it'],
    ]);
    expect(pathsOf({ ...m, absentKeys: ['X', 'S'] })?.[0]?.[0]).toBe('absentKeys.1');
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
