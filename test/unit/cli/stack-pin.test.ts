import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ExitCode } from '../../../cli/exit-codes';
import { pinnedStackOf, StackPinSchema, stackPinOf } from '../../../client/stack-pin';
import { guardKeyName, sealerKeyName } from '../../../shared/log/log-names';
import { formatVerifierKey, noteVerifierKey } from '../../../shared/log/note-key';
import { formatCosignerKey } from '../../../shared/witness/cosigner-key';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { TEST_GUARD_KEY, TEST_LOG_KEY, TEST_SEALER_KEY } from '../../helpers/pipeline-keys';
import { testCosignerKey } from '../../helpers/witness-factories';
import { startFakeAws } from './fake-aws';
import { runCli } from './run-cli';

const dir = mkdtempSync(join(tmpdir(), 'reseal-stack-pin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pin = stackPinOf({
  stackName: 'ResealStack',
  outputs: TEST_CLIENT_OUTPUTS,
  logKey: TEST_LOG_KEY,
  guardKey: TEST_GUARD_KEY,
  sealerKey: TEST_SEALER_KEY,
});

function pinFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

// No AWS_ENDPOINT_URL and no credentials: any AWS call the CLI made would fail the run (exit 1).
describe('docs/cli.md "Pinning the stack": the stack pin file', () => {
  it('log-key with a pin prints the pinned key without reaching AWS', async () => {
    const path = pinFile('stack.json', pin);
    const run = await runCli(['log-key'], { cwd: dir, env: { RESEAL_STACK_FILE: path } });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(ExitCode.OK);
    expect(run.stdout).toBe(`${formatVerifierKey(TEST_LOG_KEY)}\n`);
  });

  it('is found at .reseal/stack.json under the working directory when RESEAL_STACK_FILE is not set', async () => {
    const cwd = join(dir, 'project');
    mkdirSync(join(cwd, '.reseal'), { recursive: true });
    writeFileSync(join(cwd, '.reseal', 'stack.json'), JSON.stringify(pin));
    const run = await runCli(['log-key', '--json'], { cwd, env: {} });
    expect(run.exitCode).toBe(ExitCode.OK);
    expect(JSON.parse(run.stdout)).toEqual({
      format: 'reseal.log-key/1',
      logName: TEST_CLIENT_OUTPUTS.logName,
      logKey: pin.logKey,
    });
  });

  it.each([
    ['an unknown field', { ...pin, extra: 1 }, 'extra'],
    ['a missing output', { ...pin, outputs: { ...pin.outputs, tableName: undefined } }, 'outputs.tableName'],
    ['a key that does not parse', { ...pin, logKey: 'not-a-key' }, 'logKey'],
    ['a log key named for another log', { ...pin, logKey: pin.guardKey }, 'logKey'],
    ['a sealer key named as the guard key', { ...pin, sealerKey: pin.guardKey }, 'sealerKey'],
    ['a guard key named as the sealer key', { ...pin, guardKey: pin.sealerKey }, 'guardKey'],
    ['no sealer key', { ...pin, sealerKey: undefined }, 'sealerKey'],
    ['no sealer key output', { ...pin, outputs: { ...pin.outputs, sealerKeyArn: undefined } }, 'outputs.sealerKeyArn'],
    ['another format version', { ...pin, formatVersion: 3 }, 'formatVersion'],
  ])('refuses %s as bad input (exit 2), naming the field', async (_what, content, field) => {
    const path = pinFile(`bad-${field}.json`, content);
    const run = await runCli(['log-key'], { cwd: dir, env: { RESEAL_STACK_FILE: path } });
    expect(run.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(run.stderr).toContain(path);
    expect(run.stderr).toContain(field);
  });

  it('reseal pin reads the three verifier keys once (GetPublicKey) and writes a format-2 pin that StackPinSchema reads back', async () => {
    const aws = await startFakeAws({
      stacks: { ResealStack: 'mac-key' },
      keys: {},
      publicKeys: {
        'log-key': TEST_LOG_KEY.publicKey,
        'guard-key': TEST_GUARD_KEY.publicKey,
        'sealer-key': TEST_SEALER_KEY.publicKey,
      },
    });
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    vi.stubEnv('AWS_PROFILE', undefined);
    try {
      const path = join(dir, 'pinned.json');
      const env = { AWS_ENDPOINT_URL: aws.url, AWS_REGION: 'us-east-1', RESEAL_STACK_FILE: path };
      const run = await runCli(['pin', '--json'], { cwd: dir, env });
      expect(run.stderr).toBe('');
      expect(run.exitCode).toBe(ExitCode.OK);
      const logName = 'reseal/ResealStack';
      const pinned = pinnedStackOf(StackPinSchema.parse(JSON.parse(readFileSync(path, 'utf8'))));
      expect(pinned.outputs.sealerKeyArn).toBe('sealer-key');
      expect(pinned.logKey).toEqual(noteVerifierKey(logName, TEST_LOG_KEY.publicKey));
      expect(pinned.guardKey).toEqual(noteVerifierKey(guardKeyName(logName), TEST_GUARD_KEY.publicKey));
      expect(pinned.sealerKey).toEqual(noteVerifierKey(sealerKeyName(logName), TEST_SEALER_KEY.publicKey));
      expect(JSON.parse(run.stdout)).toMatchObject({
        path,
        format: 'reseal.stack-pin/1',
        stackName: 'ResealStack',
        sealerKey: formatVerifierKey(pinned.sealerKey),
      });
    } finally {
      vi.unstubAllEnvs();
      await aws.close();
    }
  });

  it("states the freshness window with the pinned stack's integration interval (max age + 10 s)", async () => {
    const tenSeconds = stackPinOf({
      stackName: 'ResealStack',
      outputs: { ...TEST_CLIENT_OUTPUTS, integrationIntervalSeconds: 10 },
      logKey: TEST_LOG_KEY,
      guardKey: TEST_GUARD_KEY,
      sealerKey: TEST_SEALER_KEY,
    });
    const env = { RESEAL_STACK_FILE: pinFile('interval.json', tenSeconds) };
    const witness = [
      '--witness-vkey',
      formatCosignerKey(await testCosignerKey()),
      '--witness-url',
      'http://127.0.0.1:9/',
    ];
    const json = await runCli(['policy', ...witness, '--max-age-seconds', '60', '--json'], { cwd: dir, env });
    expect(json.exitCode, json.stderr).toBe(ExitCode.OK);
    expect(JSON.parse(json.stdout)).toMatchObject({ maxAgeSeconds: 60, intervalSeconds: 10, windowSeconds: 70 });
    const text = await runCli(['policy', ...witness], { cwd: dir, env });
    expect(text.stderr).toContain('freshness window of a cold client: 190 s (max age + interval)');
  });

  it('refuses a format-1 pin (no sealer key), telling to pin again', async () => {
    const { sealerKey: _, ...v1 } = { ...pin, formatVersion: 1, outputs: { ...pin.outputs } };
    const path = pinFile('v1.json', v1);
    const run = await runCli(['log-key'], { cwd: dir, env: { RESEAL_STACK_FILE: path } });
    expect(run.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(run.stderr).toContain('format 1 pins no sealer key: run `reseal pin` again');
  });

  it('refuses a pin of another stack, and a RESEAL_STACK_FILE that does not exist', async () => {
    const path = pinFile('other.json', pin);
    const other = await runCli(['log-key', '--stack', 'OtherStack'], { cwd: dir, env: { RESEAL_STACK_FILE: path } });
    expect(other.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(other.stderr).toContain('pins stack ResealStack, not OtherStack');
    const missing = await runCli(['log-key'], { cwd: dir, env: { RESEAL_STACK_FILE: join(dir, 'none.json') } });
    expect(missing.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(missing.stderr).toContain('none.json');
  });
});
