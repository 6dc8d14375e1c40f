import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDeployContext, deployContext } from '../../../cli/deploy-context-check';
import { BadInputError } from '../../../cli/errors';
import { DEFAULT_DEPLOY_SETTINGS, deploySettingsFromContext } from '../../../shared/cost/deploy-settings';
import { runCli } from './run-cli';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * `reseal deploy` checks the deployment settings among its context values before the CDK runs
 * (docs/infrastructure.md, "Configuration"): a bad one is a single line and exit 2.
 */
describe('checkDeployContext', () => {
  it.each([
    [{ tableCapacity: 'PROVISIONED' }, 'context tableCapacity: expected on-demand or provisioned, got "PROVISIONED"'],
    [{ tableCapacity: 'provisioned ' }, 'context tableCapacity: expected on-demand or provisioned, got "provisioned "'],
    [{ tableCapacity: 'provisioned', tableMinCapacity: '0' }, 'context tableMinCapacity="0": expected whole capacity'],
    [{ tableCapacity: 'provisioned', tableMinCapacity: '1.5' }, 'context tableMinCapacity="1.5": expected'],
    [{ tableCapacity: 'provisioned', tableMinCapacity: '-3' }, 'context tableMinCapacity="-3": expected'],
    [{ tableCapacity: 'provisioned', tableMinCapacity: '1e9' }, 'context tableMinCapacity="1e9": expected'],
    [{ tableCapacity: 'provisioned', tableMinCapacity: '0x10' }, 'context tableMinCapacity="0x10": expected'],
    [{ tableCapacity: 'provisioned', tableMaxCapacity: 'abc' }, 'context tableMaxCapacity="abc": expected'],
    [{ tableCapacity: 'provisioned', tableMinCapacity: 2.5 }, 'context tableMinCapacity=2.5: expected'],
    [
      { tableCapacity: 'provisioned', tableMinCapacity: '10', tableMaxCapacity: '5' },
      'context tableMinCapacity 10 is above tableMaxCapacity 5',
    ],
    [{ tableMinCapacity: '10' }, 'context tableMinCapacity and tableMaxCapacity need tableCapacity provisioned'],
    [{ tableMaxCapacity: 10 }, 'context tableMinCapacity and tableMaxCapacity need tableCapacity provisioned'],
    [{ integrationIntervalSeconds: '0' }, 'context integrationIntervalSeconds="0": expected whole seconds, 1 to 300'],
    [{ integrationIntervalSeconds: '301' }, 'context integrationIntervalSeconds="301": expected'],
    [{ integrationIntervalSeconds: '2.5' }, 'context integrationIntervalSeconds="2.5": expected'],
    [{ integrationIntervalSeconds: 'abc' }, 'context integrationIntervalSeconds="abc": expected'],
    [{ guardBatchingWindowSeconds: '-1' }, 'context guardBatchingWindowSeconds="-1": expected whole seconds, 0 to 300'],
  ])('refuses %j', (context, message) => {
    expect(() => checkDeployContext(context)).toThrow(BadInputError);
    expect(() => checkDeployContext(context)).toThrow(message);
  });

  it.each([
    {},
    { tableCapacity: '' },
    { tableCapacity: 'on-demand' },
    { tableCapacity: 'provisioned', tableMinCapacity: '1', tableMaxCapacity: '1' },
    { tableCapacity: 'provisioned', tableMinCapacity: 5, tableMaxCapacity: 100 },
    { integrationIntervalSeconds: '300', guardBatchingWindowSeconds: '0' },
    { '@aws-cdk/aws-lambda-nodejs:useLatestRuntimeVersion': true },
  ])('accepts %j', (context) => {
    expect(() => checkDeployContext(context)).not.toThrow();
  });

  it('is the parser the CDK app takes its settings from: typed values, the defaults where unset', () => {
    expect(deploySettingsFromContext({})).toEqual(DEFAULT_DEPLOY_SETTINGS);
    expect(
      deploySettingsFromContext({
        guardBatchingWindowSeconds: '1',
        integrationIntervalSeconds: 10,
        tableCapacity: 'provisioned',
        tableMaxCapacity: '100',
      }),
    ).toEqual({
      guardBatchingWindowSeconds: 1,
      integrationIntervalSeconds: 10,
      tableCapacity: { mode: 'provisioned', minCapacity: 5, maxCapacity: 100 },
    });
    // `Number('0x10')` is 16: the app once deployed 16 units from it.
    expect(() => deploySettingsFromContext({ tableCapacity: 'provisioned', tableMinCapacity: '0x10' })).toThrow(
      'context tableMinCapacity="0x10": expected whole capacity units, 1 or more',
    );
  });
});

describe('deployContext', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reseal-deploy-context-'));
    await writeFile(
      join(dir, 'cdk.json'),
      JSON.stringify({ app: 'x', context: { tableCapacity: 'provisioned', tableMinCapacity: 0 } }),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads cdk.json's context, the -c values over it (the last one given winning)", async () => {
    expect(await deployContext(dir, ['tableMinCapacity=3', 'stackName=a=b', 'tableMinCapacity=4'])).toEqual({
      tableCapacity: 'provisioned',
      tableMinCapacity: '4',
      stackName: 'a=b',
    });
    expect(() => checkDeployContext({ tableCapacity: 'provisioned', tableMinCapacity: 0 })).toThrow(
      'context tableMinCapacity=0: expected whole capacity units, 1 or more',
    );
  });
});

describe('reseal deploy with a bad setting', () => {
  it('prints one line and exits 2 before the CDK runs', async () => {
    const result = await runCli(['deploy', '--dry-run', '-c', 'tableCapacity=PROVISIONED'], { cwd: ROOT });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('context tableCapacity: expected on-demand or provisioned, got "PROVISIONED"');
    expect(result.stderr).not.toContain('synthesizing');
  });
});
