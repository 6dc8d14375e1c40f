import { describe, expect, it } from 'vitest';
import { InvalidInputError, ManifestSealMismatchError } from '../../../../shared/errors';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import { compositeSeal } from '../../../../shared/triage/composite-seal';
import { DeltaIsolationReportSchema, DeltaVerdict } from '../../../../shared/triage/delta-isolation-report';
import { envKeyHash } from '../../../../shared/triage/env-key-hash';
import { isolateDelta } from '../../../../shared/triage/isolate-delta';

// A realistic record: architecture and mount root are structural; two claims depend on
// interface contracts; HOSTNAME and PID are ambient telemetry (docs/triage.md).
const baselineEnv = {
  ARCH: 'arm64',
  MOUNT_ROOT: '/srv/agent',
  SCHEMA_VERSION: '7',
  API_CONTRACT: 'v2',
  PRIVILEGE_TIER: 'reader',
  HOSTNAME: 'ip-10-0-0-12',
  PID: '4242',
};
const claims = {
  'claim-db-schema': ['SCHEMA_VERSION'],
  'claim-api': ['API_CONTRACT', 'PRIVILEGE_TIER'],
  'claim-reader': ['PRIVILEGE_TIER'],
};
const manifest = buildManifest({
  env: baselineEnv,
  structuralKeys: ['ARCH', 'MOUNT_ROOT'],
  claimDependencyMap: claims,
});
const allClaims = ['claim-api', 'claim-db-schema', 'claim-reader'];

const triage = (current: Record<string, string>, m: unknown = manifest) => {
  const report = isolateDelta(m, current);
  // Every report is valid against its own strict schema (sorted, unique arrays; non-empty reason).
  expect(DeltaIsolationReportSchema.parse(report)).toEqual(report);
  return report;
};

describe('isolateDelta: docs/triage.md "Verdicts and rules", the verdicts', () => {
  it('docs/triage.md rule 10: no structural drift, explicit map, intersecting claims quarantined → survivors retained', () => {
    const report = triage({ ...baselineEnv, SCHEMA_VERSION: '8' });
    expect(report.verdict).toBe(DeltaVerdict.PARTIAL_REPROBE_REQUIRED);
    expect(report.invalidatedClaims).toEqual(['claim-db-schema']);
    expect(report.retainedClaims).toEqual(['claim-api', 'claim-reader']);
    expect(report.driftedKeys).toEqual({ changed: ['SCHEMA_VERSION'], vanished: [], appeared: [] });
  });

  it('docs/triage.md rule 6: a mutated structural key forces FULL_RECONSTRUCTION_REQUIRED', () => {
    const report = triage({ ...baselineEnv, ARCH: 'x86_64' });
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.structuralDrift).toEqual(['ARCH']);
    expect(report.invalidatedClaims).toEqual(allClaims);
    expect(report.retainedClaims).toEqual([]);
  });

  it('docs/triage.md rule 6: a vanished structural key forces FULL_RECONSTRUCTION_REQUIRED', () => {
    const { MOUNT_ROOT: _gone, ...current } = baselineEnv;
    const report = triage(current);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.structuralDrift).toEqual(['MOUNT_ROOT']);
    expect(report.driftedKeys.vanished).toEqual(['MOUNT_ROOT']);
  });

  it('docs/triage.md rules 2 and 4: baselineKeyHashes omitted at write time fails closed on a broken seal', () => {
    const legacy = { ...manifest, baselineKeyHashes: {} };
    const report = triage({ ...baselineEnv, PID: '1' }, legacy);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.sealIntact).toBe(false);
    expect(report.invalidatedClaims).toEqual(allClaims);
    expect(report.reason).toMatch(/no baselineKeyHashes/);
  });

  it('docs/triage.md rules 2 and 4: claimDependencyMap omitted at write time fails closed on a broken seal', () => {
    const noClaims = buildManifest({ env: baselineEnv, structuralKeys: ['ARCH'], claimDependencyMap: {} });
    const report = triage({ ...baselineEnv, PID: '1' }, noClaims);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.driftedKeys.changed).toEqual(['PID']);
    expect(report.reason).toMatch(/no claimDependencyMap/);
  });

  it('docs/triage.md rule 9: every claim depending on mutated keys forces FULL_RECONSTRUCTION_REQUIRED', () => {
    const report = triage({ ...baselineEnv, PRIVILEGE_TIER: 'admin', SCHEMA_VERSION: '8' });
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.invalidatedClaims).toEqual(allClaims);
    expect(report.retainedClaims).toEqual([]);
    expect(report.structuralDrift).toEqual([]);
    expect(report.reason).toMatch(/\(docs\/triage\.md rule 9\)$/);
  });
});

describe('isolateDelta: docs/triage.md "Verdicts and rules", the steps', () => {
  it('docs/triage.md rule 3: drifted keys are those whose value mutated or disappeared since write time', () => {
    const { PID: _gone, ...current } = baselineEnv;
    const report = triage({ ...current, HOSTNAME: 'ip-10-0-0-99' });
    expect(report.driftedKeys).toEqual({ changed: ['HOSTNAME'], vanished: ['PID'], appeared: [] });
  });

  it('docs/triage.md rule 2: an empty baselineKeyHashes on a broken seal returns FULL_RECONSTRUCTION_REQUIRED immediately', () => {
    const empty = buildManifest({ env: {}, structuralKeys: [], claimDependencyMap: {} });
    const report = triage({ HOSTNAME: 'h' }, empty);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.driftedKeys.appeared).toEqual(['HOSTNAME']);
  });

  it('docs/triage.md rule 6: a structural key in the delta invalidates the whole remnant even if no claim names it', () => {
    const report = triage({ ...baselineEnv, MOUNT_ROOT: '/mnt/other' });
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.reason).toMatch(/structural key "MOUNT_ROOT"/);
  });

  it('docs/triage.md rule 7: claims partition into retained (no overlap) and invalidated (overlap) without loss', () => {
    const report = triage({ ...baselineEnv, API_CONTRACT: 'v3' });
    expect(report.invalidatedClaims).toEqual(['claim-api']);
    expect(report.retainedClaims).toEqual(['claim-db-schema', 'claim-reader']);
    expect([...report.invalidatedClaims, ...report.retainedClaims].sort()).toEqual(allClaims);
  });

  it('docs/triage.md rules 8 and 10: no invalidated claim on a broken seal is AMBIENT_DRIFT_ONLY and authorizes every claim', () => {
    const report = triage({ ...baselineEnv, HOSTNAME: 'ip-10-0-0-13', PID: '1' });
    expect(report.verdict).toBe(DeltaVerdict.AMBIENT_DRIFT_ONLY);
    expect(report.sealIntact).toBe(false);
    expect(report.retainedClaims).toEqual(allClaims);
    expect(report.invalidatedClaims).toEqual([]);
    expect(report.driftedKeys.changed).toEqual(['HOSTNAME', 'PID']);
  });

  it('docs/triage.md rule 10: a strict subset of invalidated claims is PARTIAL_REPROBE_REQUIRED', () => {
    const report = triage({ ...baselineEnv, PRIVILEGE_TIER: 'admin' });
    expect(report.verdict).toBe(DeltaVerdict.PARTIAL_REPROBE_REQUIRED);
    expect(report.invalidatedClaims).toEqual(['claim-api', 'claim-reader']);
    expect(report.retainedClaims).toEqual(['claim-db-schema']);
  });

  it('docs/triage.md rule 7: a claim touching any drifted causal key is never retained', () => {
    const report = triage({ ...baselineEnv, API_CONTRACT: 'v3', HOSTNAME: 'x' });
    expect(report.retainedClaims).not.toContain('claim-api');
    expect(report.invalidatedClaims).toContain('claim-api');
  });
});

describe('isolateDelta: triage hardening (docs/triage.md)', () => {
  it('hardening: the composite seal is checked first; intact means NO_DRIFT with every claim retained', () => {
    const report = triage({ ...baselineEnv });
    expect(report).toMatchObject({
      verdict: DeltaVerdict.NO_DRIFT,
      sealIntact: true,
      driftedKeys: { changed: [], vanished: [], appeared: [] },
      retainedClaims: allClaims,
      invalidatedClaims: [],
    });
  });

  it('hardening: an intact seal wins over an empty claimDependencyMap (NO_DRIFT, not fail-closed)', () => {
    const noClaims = buildManifest({ env: baselineEnv, structuralKeys: [], claimDependencyMap: {} });
    expect(triage(baselineEnv, noClaims).verdict).toBe(DeltaVerdict.NO_DRIFT);
  });

  it('hardening: an opaque seal with empty baselineKeyHashes still gives NO_DRIFT when the environment matches it', () => {
    const opaque = { ...manifest, baselineKeyHashes: {} };
    expect(triage(baselineEnv, opaque).verdict).toBe(DeltaVerdict.NO_DRIFT);
  });

  it('docs/triage.md rule 1 (hardening): an appeared key breaks the composite seal (a seal over the baseline keys only would report NO_DRIFT)', () => {
    const report = triage({ ...baselineEnv, NEW_AMBIENT: 'x' });
    expect(report.sealIntact).toBe(false);
    expect(report.verdict).toBe(DeltaVerdict.AMBIENT_DRIFT_ONLY);
    expect(report.driftedKeys.appeared).toEqual(['NEW_AMBIENT']);
  });

  it('hardening: a structural key missing from baselineKeyHashes is unattributed and fails closed', () => {
    const { ARCH: _a, ...hashes } = manifest.baselineKeyHashes;
    const gap = { ...manifest, baselineKeyHashes: hashes, preconditionSeal: compositeSeal(hashes) };
    const report = triage({ ...baselineEnv, PID: '1' }, gap);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.unattributedKeys).toEqual(['ARCH']);
    expect(report.reason).toMatch(/unattributed/);
  });

  it('hardening: a causal key missing from baselineKeyHashes is unattributed and fails closed', () => {
    const { SCHEMA_VERSION: _s, ...hashes } = manifest.baselineKeyHashes;
    const gap = { ...manifest, baselineKeyHashes: hashes, preconditionSeal: compositeSeal(hashes) };
    const report = triage({ ...baselineEnv, HOSTNAME: 'y' }, gap);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.unattributedKeys).toEqual(['SCHEMA_VERSION']);
    expect(report.driftedKeys.appeared).toEqual(['SCHEMA_VERSION']);
    expect(report.invalidatedClaims).toEqual(allClaims);
  });

  it('hardening: a vanished causal key counts as drift and invalidates its claims', () => {
    const { API_CONTRACT: _gone, ...current } = baselineEnv;
    const report = triage(current);
    expect(report.verdict).toBe(DeltaVerdict.PARTIAL_REPROBE_REQUIRED);
    expect(report.driftedKeys.vanished).toEqual(['API_CONTRACT']);
    expect(report.invalidatedClaims).toEqual(['claim-api']);
  });

  it('hardening: key hashes bind the key, so swapping values between two keys is drift on both', () => {
    expect(envKeyHash('SCHEMA_VERSION', 'v2')).not.toBe(envKeyHash('API_CONTRACT', 'v2'));
    const report = triage({ ...baselineEnv, SCHEMA_VERSION: 'v2', API_CONTRACT: '7' });
    expect(report.driftedKeys.changed).toEqual(['API_CONTRACT', 'SCHEMA_VERSION']);
    expect(report.invalidatedClaims).toEqual(['claim-api', 'claim-db-schema']);
  });

  it('hardening: every verdict lists drifted keys, claims to re-probe and a human reason', () => {
    const cases = [
      baselineEnv,
      { ...baselineEnv, PID: '2' },
      { ...baselineEnv, SCHEMA_VERSION: '9' },
      { ...baselineEnv, ARCH: 'riscv' },
    ];
    const verdicts = cases.map((env) => triage(env));
    expect(verdicts.map((r) => r.verdict)).toEqual([
      DeltaVerdict.NO_DRIFT,
      DeltaVerdict.AMBIENT_DRIFT_ONLY,
      DeltaVerdict.PARTIAL_REPROBE_REQUIRED,
      DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED,
    ]);
    for (const report of verdicts) {
      expect(report.reason.length).toBeGreaterThan(20);
      expect(report).toHaveProperty('driftedKeys.changed');
      expect(report).toHaveProperty('invalidatedClaims');
    }
    expect(verdicts[3]?.driftedKeys.changed).toEqual(['ARCH']);
  });

  it('hardening: a manifest whose preconditionSeal does not match its baselineKeyHashes is refused as corrupt', () => {
    const forged = { ...manifest, baselineKeyHashes: { ...manifest.baselineKeyHashes, PID: envKeyHash('PID', '1') } };
    const attempt = () => isolateDelta(forged, { ...baselineEnv, PID: '1' });
    expect(attempt).toThrow(ManifestSealMismatchError);
    expect(attempt).toThrow(InvalidInputError);
    try {
      attempt();
    } catch (error) {
      const e = error as ManifestSealMismatchError;
      expect(e.name).toBe('ManifestSealMismatchError');
      expect(e.issues[0]?.path).toBe('preconditionSeal');
      expect(e.recordedSeal).toBe(manifest.preconditionSeal);
      expect(e.recomputedSeal).toBe(compositeSeal(forged.baselineKeyHashes));
    }
  });

  it('hardening: long key lists in a reason are abbreviated, not dumped', () => {
    const env: Record<string, string> = {};
    for (let i = 0; i < 15; i++) env[`S${String(i).padStart(2, '0')}`] = 'a';
    const m = buildManifest({ env, structuralKeys: Object.keys(env), claimDependencyMap: { c: ['S00'] } });
    const current = Object.fromEntries(Object.keys(env).map((k) => [k, 'b']));
    const report = triage(current, m);
    expect(report.structuralDrift).toHaveLength(15);
    expect(report.reason).toMatch(/and 5 more/);
  });
});

describe('isolateDelta: keys declared absent (manifest format 2)', () => {
  // "no proxy configured" rests on HTTP_PROXY / HTTPS_PROXY being unset; the record as a whole on LD_PRELOAD being unset.
  const v2 = buildManifest({
    env: baselineEnv,
    structuralKeys: ['ARCH', 'MOUNT_ROOT'],
    structuralAbsentKeys: ['LD_PRELOAD'],
    claimDependencyMap: {
      ...claims,
      'claim-no-proxy': { absentKeys: ['HTTPS_PROXY', 'HTTP_PROXY'] },
      'claim-direct-api': { causalKeys: ['API_CONTRACT'], absentKeys: ['HTTP_PROXY'] },
    },
  });
  const v2Claims = ['claim-api', 'claim-db-schema', 'claim-direct-api', 'claim-no-proxy', 'claim-reader'];

  it('the declarations do not enter the composite seal: an unchanged environment is NO_DRIFT', () => {
    expect(v2.formatVersion).toBe(2);
    expect(v2.preconditionSeal).toBe(manifest.preconditionSeal);
    expect(triage(baselineEnv, v2)).toMatchObject({ verdict: DeltaVerdict.NO_DRIFT, retainedClaims: v2Claims });
  });

  it('a declared-absent key that appears invalidates exactly the claims that name it', () => {
    const proxy = triage({ ...baselineEnv, HTTP_PROXY: 'http://proxy:3128' }, v2);
    expect(proxy.verdict).toBe(DeltaVerdict.PARTIAL_REPROBE_REQUIRED);
    expect(proxy.sealIntact).toBe(false);
    expect(proxy.driftedKeys).toEqual({ changed: [], vanished: [], appeared: ['HTTP_PROXY'] });
    expect(proxy.invalidatedClaims).toEqual(['claim-direct-api', 'claim-no-proxy']);
    expect(proxy.retainedClaims).toEqual(['claim-api', 'claim-db-schema', 'claim-reader']);
    expect(proxy.unattributedKeys).toEqual([]);
    expect(proxy.reason).toMatch(/declared absent at write time and present now: "HTTP_PROXY"$/);
    const secure = triage({ ...baselineEnv, HTTPS_PROXY: 'http://proxy:3128' }, v2);
    expect(secure.invalidatedClaims).toEqual(['claim-no-proxy']);
  });

  it('the same appearance under a format-1 manifest stays ambient (what a record without the declaration gets)', () => {
    const report = triage({ ...baselineEnv, HTTP_PROXY: 'http://proxy:3128' });
    expect(report.verdict).toBe(DeltaVerdict.AMBIENT_DRIFT_ONLY);
    expect(report.reason).not.toMatch(/declared absent/);
  });

  it('a key that appears without being declared absent invalidates no claim', () => {
    const report = triage({ ...baselineEnv, NO_PROXY: 'localhost' }, v2);
    expect(report.verdict).toBe(DeltaVerdict.AMBIENT_DRIFT_ONLY);
    expect(report.retainedClaims).toEqual(v2Claims);
    expect(report.driftedKeys.appeared).toEqual(['NO_PROXY']);
  });

  it('a structural key declared absent that appears is FULL_RECONSTRUCTION_REQUIRED', () => {
    const report = triage({ ...baselineEnv, LD_PRELOAD: '/tmp/hook.so' }, v2);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.structuralDrift).toEqual(['LD_PRELOAD']);
    expect(report.invalidatedClaims).toEqual(v2Claims);
    expect(report.reason).toBe(
      'structural key "LD_PRELOAD" declared absent at write time appeared: the whole record is invalid (docs/triage.md rule 6a)',
    );
    const both = triage({ ...baselineEnv, ARCH: 'x86_64', LD_PRELOAD: '/tmp/hook.so' }, v2);
    expect(both.structuralDrift).toEqual(['ARCH', 'LD_PRELOAD']);
    expect(both.reason).toMatch(/^structural key "ARCH" changed or vanished and structural key "LD_PRELOAD" declared/);
  });

  it('every claim invalidated by an appeared declared-absent key is FULL_RECONSTRUCTION_REQUIRED, naming the key', () => {
    const only = buildManifest({
      env: baselineEnv,
      structuralKeys: [],
      claimDependencyMap: { 'claim-no-proxy': { absentKeys: ['HTTP_PROXY'] } },
    });
    const report = triage({ ...baselineEnv, HTTP_PROXY: 'x' }, only);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.reason).toMatch(
      /\(docs\/triage\.md rule 9\); declared absent at write time and present now: "HTTP_PROXY"$/,
    );
  });

  it('a causal key neither hashed nor declared absent stays unattributed and fails closed', () => {
    const gap = { ...v2, claimDependencyMap: { ...v2.claimDependencyMap, 'claim-gpu': ['GPU'] } };
    const report = triage({ ...baselineEnv, PID: '1' }, gap);
    expect(report.verdict).toBe(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED);
    expect(report.unattributedKeys).toEqual(['GPU']);
  });
});

describe('isolateDelta: hostile and malformed input', () => {
  const expectField = (fn: () => unknown, path: string) => {
    let caught: unknown;
    try {
      fn();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputError);
    expect((caught as InvalidInputError).issues.map((i) => i.path)).toContain(path);
  };

  it('refuses a __proto__ key in the current environment', () => {
    expectField(() => isolateDelta(manifest, JSON.parse('{"__proto__":"x","ARCH":"arm64"}')), '');
  });

  it('refuses NFC and NFD spellings of one key in the current environment', () => {
    expectField(() => isolateDelta(manifest, { ...baselineEnv, caf\u00e9: '1', cafe\u0301: '2' }), '');
  });

  it('refuses a lone surrogate in a value and in a key', () => {
    expectField(() => isolateDelta(manifest, { ...baselineEnv, PID: '\ud800' }), 'PID');
    expectField(() => isolateDelta(manifest, { ...baselineEnv, 'K\udc00': 'v' }), 'K\udc00');
  });

  it('refuses control characters in a key', () => {
    expectField(() => isolateDelta(manifest, { ...baselineEnv, 'A\nB': 'v' }), 'A\nB');
  });

  it('refuses a non-string value and a non-object environment', () => {
    expectField(() => isolateDelta(manifest, { ...baselineEnv, PID: 42 }), 'PID');
    expectField(() => isolateDelta(manifest, ['ARCH']), '');
  });

  it('refuses a manifest with an unknown field, a wrong version or a bad digest, naming the field', () => {
    expectField(() => isolateDelta({ ...manifest, extra: 1 }, baselineEnv), '');
    expectField(() => isolateDelta({ ...manifest, formatVersion: 3 }, baselineEnv), 'formatVersion');
    expectField(() => isolateDelta({ ...manifest, formatVersion: 2 }, baselineEnv), 'absentKeys');
    expectField(() => isolateDelta({ ...manifest, absentKeys: ['GPU'] }, baselineEnv), '');
    expectField(() => isolateDelta({ ...manifest, preconditionSeal: 'ABC' }, baselineEnv), 'preconditionSeal');
    expectField(
      () => isolateDelta({ ...manifest, baselineKeyHashes: { ARCH: 'nothex' } }, baselineEnv),
      'baselineKeyHashes.ARCH',
    );
  });

  it('refuses unsorted or repeated structural and causal keys, and a claim with no causal key', () => {
    expectField(
      () => isolateDelta({ ...manifest, structuralKeys: ['MOUNT_ROOT', 'ARCH'] }, baselineEnv),
      'structuralKeys.1',
    );
    expectField(() => isolateDelta({ ...manifest, structuralKeys: ['ARCH', 'ARCH'] }, baselineEnv), 'structuralKeys.1');
    expectField(
      () => isolateDelta({ ...manifest, claimDependencyMap: { c: ['B', 'A'] } }, baselineEnv),
      'claimDependencyMap.c.1',
    );
    expectField(
      () => isolateDelta({ ...manifest, claimDependencyMap: { c: [] } }, baselineEnv),
      'claimDependencyMap.c',
    );
  });

  it('refuses a __proto__ claim id smuggled through JSON.parse', () => {
    const raw = JSON.parse(`{"__proto__":["ARCH"]}`);
    expectField(() => isolateDelta({ ...manifest, claimDependencyMap: raw }, baselineEnv), 'claimDependencyMap');
  });
});
