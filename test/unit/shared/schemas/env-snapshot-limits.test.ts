import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { EnvSnapshot, parseEnvSnapshot } from '../../../../shared/schemas/env-snapshot';
import { MAX_ENV_SNAPSHOT_KEYS } from '../../../../shared/schemas/env-snapshot-limits';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import { isolateDelta } from '../../../../shared/triage/isolate-delta';

/** An environment of `keys` printable-ASCII keys (`k0`, `k1`, …), each holding `v`. */
function envOf(keys: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (let i = 0; i < keys; i++) env[`k${i}`] = 'v';
  return env;
}

const LIMIT_MESSAGE =
  'environment snapshot holds 2,000,001 keys, more than the limit of 2,000,000 (MAX_ENV_SNAPSHOT_KEYS, docs/cli.md "Input limits")';

function issuesOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidInputError) return error.issues;
    throw error;
  }
  return 'accepted';
}

describe('environment snapshot key limit (docs/cli.md, "Input limits")', () => {
  const over = envOf(MAX_ENV_SNAPSHOT_KEYS + 1);

  it('parseEnvSnapshot, buildManifest and isolateDelta refuse one key over the limit, naming the limit and the count', () => {
    expect(issuesOf(() => parseEnvSnapshot(over, 'environment snapshot'))).toEqual([
      { path: '', message: LIMIT_MESSAGE },
    ]);
    expect(issuesOf(() => buildManifest({ env: over, structuralKeys: [], claimDependencyMap: { c: ['k0'] } }))).toEqual(
      [{ path: 'env', message: LIMIT_MESSAGE }],
    );
    const manifest = buildManifest({ env: { k0: 'v' }, structuralKeys: [], claimDependencyMap: { c: ['k0'] } });
    expect(issuesOf(() => isolateDelta(manifest, over))).toEqual([{ path: '', message: LIMIT_MESSAGE }]);
  }, 120_000);

  it("the EnvSnapshot schema (the MCP tools' env argument, a non-ASCII snapshot) refuses it by count", () => {
    const nonAscii = { ...over, ключ: 'v' };
    const result = EnvSnapshot.safeParse(nonAscii);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      LIMIT_MESSAGE.replace('2,000,001', '2,000,002'),
    ]);
  }, 120_000);

  it('accepts a snapshot of exactly the limit', () => {
    const atLimit = envOf(MAX_ENV_SNAPSHOT_KEYS);
    expect(Object.keys(parseEnvSnapshot(atLimit, 'environment snapshot')).length).toBe(MAX_ENV_SNAPSHOT_KEYS);
  }, 120_000);
});
