import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DeltaShape } from '../../../client/shapes/delta-shape';
import { GuardVerdictShape } from '../../../client/shapes/guard-verdict-shape';
import { LineageIdShape } from '../../../client/shapes/lineage-id-shape';
import { LogKeyShape } from '../../../client/shapes/log-key-shape';
import { ManifestShape } from '../../../client/shapes/manifest-shape';
import { PolicyShape } from '../../../client/shapes/policy-shape';
import { StackPinShape } from '../../../client/shapes/stack-pin-shape';
import { WriterKeyShape } from '../../../client/shapes/writer-key-shape';
import { formatVerifierKey } from '../../../shared/log/note-key';
import { SealedDependencyManifestSchema } from '../../../shared/triage/sealed-dependency-manifest';
import { formatCosignerKey } from '../../../shared/witness/cosigner-key';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { testNoteVerifierKey } from '../../helpers/log-factories';
import { TEST_GUARD_KEY, TEST_LOG_KEY, TEST_SEALER_KEY } from '../../helpers/pipeline-keys';
import { testCosignerKey } from '../../helpers/witness-factories';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const NOW = ['--now-ms', '1800000000000'];

/** `--json` output that is exactly `shape`: it parses, and parsing drops nothing (no field outside the shape). */
function expectShape<S extends z.ZodType>(shape: S, stdout: string): z.infer<S> {
  const out = JSON.parse(stdout);
  const parsed = shape.parse(out);
  expect(parsed).toEqual(out);
  return parsed;
}

// docs/cli.md, "One shape per concept": every `--json` output is one camelCase shape of
// client/shapes/, tagged with its `format`.
describe('offline --json outputs are their client/shapes/ shape', () => {
  it('guard --json is reseal.guard-verdict/1: a refused write with each rejected variable', async () => {
    const run = await runCli(['guard', '--request', 'request-stale.json', '--json', ...NOW], { cwd: FIXTURES });
    expect(run.exitCode).toBe(10);
    const verdict = expectShape(GuardVerdictShape, run.stdout);
    expect(verdict).toMatchObject({
      format: 'reseal.guard-verdict/1',
      isSafe: false,
      authority: 'OPERATIONAL',
      operationalAuthority: true,
      requestViolations: [],
    });
    expect(verdict.rejectedVariables.map((v) => v.reason)).toEqual(['EPOCH_COLLAPSE', 'UNVERIFIED_INHERITED']);
  });

  it('guard --json of a safe historical write: isSafe, operationalAuthority false', async () => {
    const run = await runCli(['guard', '--request', 'request-historical.json', '--json', ...NOW], { cwd: FIXTURES });
    expect(run.exitCode).toBe(0);
    expect(expectShape(GuardVerdictShape, run.stdout)).toMatchObject({
      isSafe: true,
      authority: 'HISTORICAL_ATTRIBUTION',
      operationalAuthority: false,
    });
  });

  it('triage --json is reseal.delta/1: the drifted keys flat, the claims partitioned', async () => {
    const run = await runCli(['triage', '--manifest', 'manifest.json', '--env', 'env-partial.json', '--json'], {
      cwd: FIXTURES,
    });
    expect(run.exitCode).toBe(10);
    expect(expectShape(DeltaShape, run.stdout)).toMatchObject({
      format: 'reseal.delta/1',
      verdict: 'PARTIAL_REPROBE_REQUIRED',
      changed: ['HOSTNAME', 'NODE_VERSION', 'PID'],
      retainedClaims: ['image-is-pinned', 'python-lint-works'],
      invalidatedClaims: ['node-build-works'],
    });
  });

  it('manifest --json is reseal.manifest/1 around the very manifest the command prints without --json', async () => {
    const argv = ['manifest', '--env', 'baseline-env.json', '--structural', 'ARCH', '--claims', 'claims.json'];
    const plain = await runCli(argv, { cwd: FIXTURES });
    const run = await runCli([...argv, '--json'], { cwd: FIXTURES });
    expect(run.exitCode).toBe(0);
    const shape = expectShape(ManifestShape, run.stdout);
    expect(shape.format).toBe('reseal.manifest/1');
    expect(shape.manifest).toEqual(JSON.parse(plain.stdout));
    // The wrapped manifest is the wire format triage and a write request take, unchanged.
    expect(SealedDependencyManifestSchema.parse(shape.manifest)).toEqual(shape.manifest);
  });

  it('manifest --json draws no status line on a terminal', async () => {
    const argv = ['manifest', '--env', 'baseline-env.json', '--claims', 'claims.json', '--json'];
    const run = await runCli(argv, { cwd: FIXTURES, stderrIsTty: true });
    expect(run.stderr).toBe('');
    expectShape(ManifestShape, run.stdout);
  });
});

describe('policy --json is reseal.policy/1', () => {
  // `reseal policy` reads only the log key of the stack.
  const connect = async () => ({ outputs: {}, logKey: () => testNoteVerifierKey() }) as never;

  it('without a witness: UNWITNESSED, quorum none, no window', async () => {
    const run = await runCli(['policy', '--json'], { cwd: FIXTURES, connect });
    expect(run.exitCode, run.stderr).toBe(0);
    const policy = expectShape(PolicyShape, run.stdout);
    expect(policy).toMatchObject({
      format: 'reseal.policy/1',
      witnessing: 'UNWITNESSED',
      maxAgeSeconds: 180,
      windowSeconds: null,
    });
    expect(policy.policy).toMatch(/^log .+\nquorum none\n$/);
  });

  it('with a witness: WITNESSED, the window is max age + interval', async () => {
    const vkey = formatCosignerKey(await testCosignerKey());
    const argv = [
      'policy',
      '--witness-vkey',
      vkey,
      '--witness-url',
      'http://127.0.0.1:9/',
      '--max-age-seconds',
      '60',
      '--json',
    ];
    const run = await runCli(argv, { cwd: FIXTURES, connect });
    expect(run.exitCode, run.stderr).toBe(0);
    const policy = expectShape(PolicyShape, run.stdout);
    expect(policy).toMatchObject({ witnessing: 'WITNESSED', maxAgeSeconds: 60 });
    expect(policy.windowSeconds).toBe(60 + policy.intervalSeconds);
    expect(policy.policy).toContain(`witness w1 ${vkey} http://127.0.0.1:9/\nquorum w1\n`);
  });
});

describe('the key and stack commands: --json is their shape', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reseal-json-shapes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writer-key new --json is reseal.writer-key/1; lineage-id --json of that key is reseal.lineage-id/1', async () => {
    const made = await runCli(['writer-key', 'new', '--out', 'agent.pem', '--json'], { cwd: dir });
    expect(made.exitCode, made.stderr).toBe(0);
    const key = expectShape(WriterKeyShape, made.stdout);
    expect(key).toMatchObject({ format: 'reseal.writer-key/1', keyFile: 'agent.pem' });
    expect(Buffer.from(key.publicKey, 'base64')).toHaveLength(32);
    expect(readFileSync(join(dir, 'agent.pem'), 'utf8')).toContain('PRIVATE KEY');

    const id = await runCli(['lineage-id', '--label', 'agent-7', '--writer-key', 'agent.pem', '--json'], { cwd: dir });
    expect(id.exitCode, id.stderr).toBe(0);
    const lineage = expectShape(LineageIdShape, id.stdout);
    expect(lineage).toMatchObject({ format: 'reseal.lineage-id/1', keyId: key.keyId });
    expect(lineage.lineageId).toMatch(/^agent-7\.[0-9a-f]{32}$/);
  });

  it('pin --json is reseal.stack-pin/1, and log-key --json of the pinned stack reseal.log-key/1', async () => {
    const client = {
      outputs: TEST_CLIENT_OUTPUTS,
      logKey: async () => TEST_LOG_KEY,
      guardKey: async () => TEST_GUARD_KEY,
      sealerKey: async () => TEST_SEALER_KEY,
    };
    const env = { RESEAL_STACK_FILE: join(dir, 'stack.json') };
    const pinned = await runCli(['pin', '--json'], { cwd: dir, env, connect: async () => client as never });
    expect(pinned.exitCode, pinned.stderr).toBe(0);
    expect(expectShape(StackPinShape, pinned.stdout)).toEqual({
      format: 'reseal.stack-pin/1',
      path: join(dir, 'stack.json'),
      stackName: 'ResealStack',
      logKey: formatVerifierKey(TEST_LOG_KEY),
      guardKey: formatVerifierKey(TEST_GUARD_KEY),
      sealerKey: formatVerifierKey(TEST_SEALER_KEY),
    });
    const logKey = await runCli(['log-key', '--json'], { cwd: dir, env });
    expect(logKey.exitCode, logKey.stderr).toBe(0);
    expect(expectShape(LogKeyShape, logKey.stdout)).toEqual({
      format: 'reseal.log-key/1',
      logName: TEST_CLIENT_OUTPUTS.logName,
      logKey: formatVerifierKey(TEST_LOG_KEY),
    });
  });
});
