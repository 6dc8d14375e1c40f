import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeployShape } from '../../client/shapes/deploy-shape';
import { runCli } from '../unit/cli/run-cli';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * `reseal deploy --dry-run` (docs/infrastructure.md, "Deploying"): the real CDK synthesizes the
 * stack and the estimate is printed with no AWS account: no credentials, no AWS configuration,
 * and every HTTP(S) request sent to a proxy that does not exist.
 */
describe('reseal deploy --dry-run with no AWS account and no network', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'reseal-dry-run-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('synthesizes the stack and prints the cost estimate with its price table date', async () => {
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      AWS_CONFIG_FILE: join(home, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-aws-credentials'),
      HTTP_PROXY: 'http://127.0.0.1:9',
      HTTPS_PROXY: 'http://127.0.0.1:9',
    };
    const result = await runCli(['deploy', '--dry-run', '--json'], { cwd: ROOT, env });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    // The reseal.deploy/1 shape (docs/cli.md, "One shape per concept"), nothing outside it.
    const printed = JSON.parse(result.stdout);
    const out = DeployShape.parse(printed);
    expect(out).toEqual(printed);
    expect(out).toMatchObject({
      format: 'reseal.deploy/1',
      stack: 'ResealStack',
      dryRun: true,
      outputs: null,
      logKey: null,
    });
    expect(out.estimate.priceDates).toEqual(['2026-12-05', '2026-12-06']);
    expect(out.estimate.usdPerMillionWrites).toBeGreaterThan(0);
    // The stack's defaults, read from the synthesized template, priced as the defaults' row.
    expect(out.estimate.settings).toEqual({
      guardBatchingWindowSeconds: 0,
      integrationIntervalSeconds: 2,
      tableCapacity: 'on-demand',
      tableMinCapacity: null,
      tableMaxCapacity: null,
    });
    expect(out.estimate.usdPerMillionWritesAsDeployed).toBe(out.estimate.usdPerMillionWrites);
    expect(out.estimate.alternatives.map((a) => a.id)).toEqual([
      'defaults',
      'guardWindow',
      'provisioned',
      'longerInterval',
      'longestInterval',
    ]);
    expect(out.estimate.targetUsdPerMillionWrites).toBe(5);
    expect(out.estimate.usdPerMillionRecalls).toBeGreaterThan(0);
    // Counted in the synthesized template: the MAC key, the log key, the guard key, the sealer key, the notice key; four alarms
    // (the dead-letter queues of residual-writes, seal-requests and integration, and triage's).
    expect(out.estimate.monthlyLines).toEqual([
      { dimension: 'kmsKeyMonth', units: 5, usd: 5 },
      { dimension: 'cloudWatchAlarmMonth', units: 4, usd: expect.closeTo(0.4, 6) },
    ]);
  });

  it('prices the settings it synthesizes with (-c): the guard window, a provisioned table, a 10 s interval', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: home, HTTP_PROXY: 'http://127.0.0.1:9' };
    const context = [
      '-c',
      'guardBatchingWindowSeconds=1',
      '-c',
      'tableCapacity=provisioned',
      '-c',
      'integrationIntervalSeconds=10',
    ];
    const result = await runCli(['deploy', '--dry-run', ...context], { cwd: ROOT, env });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    // test/unit/shared/cost/deploy-estimate.test.ts works the figures out: $5.16 with all three,
    // 1.03× the target; $4.86 with a 30 s interval in place of 10 s, 0.97×.
    expect(lines.find((l) => l.includes('per million writes ') && l.includes('as deployed'))).toMatch(
      /\$5\.16 +as deployed: guard window 1 s, integration every 10 s, table provisioned \(5 to 40000 units, auto scaled\)/,
    );
    expect(lines.find((l) => l.includes('integrationIntervalSeconds=10'))).toMatch(
      /\$5\.16 +1\.03× .*\(this deployment\)$/,
    );
    expect(lines.find((l) => l.includes('integrationIntervalSeconds=30, not 10'))).toMatch(/\$4\.86 +0\.97× /);
    expect(lines.find((l) => l.includes('the defaults'))).toMatch(/\$12\.8 +2\.56× /);
    expect(result.stdout).toContain('dynamodbReadCapacityUnitHour');
  });

  it('refuses bad table capacity context with one line and exit 2, before the CDK synthesizes anything', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: home, HTTP_PROXY: 'http://127.0.0.1:9' };
    const refused = async (context: string[], message: RegExp) => {
      const result = await runCli(['deploy', '--dry-run', ...context.flatMap((c) => ['-c', c])], { cwd: ROOT, env });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    };
    await refused(['tableCapacity=burst'], /tableCapacity: expected on-demand or provisioned, got "burst"/);
    await refused(
      ['tableCapacity=provisioned', 'tableMinCapacity=100', 'tableMaxCapacity=50'],
      /tableMinCapacity 100 is above tableMaxCapacity 50/,
    );
    await refused(
      ['tableCapacity=provisioned', 'tableMaxCapacity=lots'],
      /tableMaxCapacity="lots": expected whole capacity units/,
    );
    await refused(['tableMinCapacity=5'], /need tableCapacity provisioned/);
  });

  it('refuses destroy without --yes (exit 2), before anything runs', async () => {
    const result = await runCli(['destroy'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: home } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Run again with --yes to confirm');
  });
});
