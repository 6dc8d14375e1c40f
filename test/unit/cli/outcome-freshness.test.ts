import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FreshnessPolicy } from '../../../client/freshness-policy';
import { ReceiptVerificationShape } from '../../../client/shapes/receipt-verification-shape';
import { formatVerifierKey } from '../../../shared/log/note-key';
import { requestDigest } from '../../../shared/write/request-digest';
import { markerKey } from '../../helpers/in-memory-lineage-store';
import {
  cosignedByTestWitness,
  integratedStack,
  unwitnessedTestPolicy,
  witnessedTestPolicy,
} from '../../helpers/integrated-stack';
import { signedConflict } from '../../helpers/outcome-factories';
import { TEST_LOG_KEY } from '../../helpers/pipeline-keys';
import { testLineageId } from '../../helpers/writer-factories';
import { CLI_TEST_NOW_MS, runCli } from './run-cli';

const LINEAGE = testLineageId('lin-cli-fresh');

/** `reseal publish --wait --json` of `r` on an in-memory stack whose queue seals it, integrating on the client's `integrateAtSleep`-th wait. */
async function publishWait(options: {
  integrateAtSleep?: number;
  args?: string[];
  setup?: (s: ReturnType<typeof integratedStack>) => Promise<void>;
  /** After the queue seals the write (a table writer's edit). */
  afterSeal?: (s: ReturnType<typeof integratedStack>) => unknown;
  /** The sealer signs no lineage checkpoint: its seals are in heads it MAC'd until integrated. */
  macHeads?: boolean;
}) {
  const s = integratedStack(options.macHeads ? { signLineageCheckpoints: false } : {});
  await options.setup?.(s);
  const dir = mkdtempSync(join(tmpdir(), 'reseal-publish-fresh-'));
  const fields = { lineageId: LINEAGE, residualId: 'r-9' };
  writeFileSync(join(dir, 'request.json'), JSON.stringify(s.request(fields)));
  let sleeps = 0;
  // The client as the CLI connects it, with the --policy it was given.
  const clientWith = (policy: FreshnessPolicy | undefined) =>
    s.client({
      deps: {
        ...(policy ? { policy } : {}),
        sqs: {
          send: async () => {
            await s.send(fields);
            await options.afterSeal?.(s);
            return { MessageId: 'msg-1' };
          },
        } as never,
      },
      onSleep: async () => {
        if (++sleeps === options.integrateAtSleep) await s.integrate();
      },
    });
  const run = await runCli(
    ['publish', '--request', 'request.json', '--wait', '--timeout-seconds', '5', '--json', ...(options.args ?? [])],
    {
      cwd: dir,
      connect: async (_stack, _store, _writer, policy) => clientWith(policy),
    },
  );
  const json = run.stdout === '' ? null : JSON.parse(run.stdout);
  return { run, json: json as { outcome: string; freshness: { state: string } | null } };
}

// `reseal publish --wait` waits until the write is PROVEN through the deployment log (docs/cli.md,
// `publish --wait`); only sealed at the timeout is exit 3, a chain that refutes it exit 20.
describe('reseal publish --wait: freshness of the write', () => {
  it('integrated while it waits: SEALED, freshness PROVEN, exit 0', async () => {
    const { run, json } = await publishWait({ integrateAtSleep: 2 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(json).toMatchObject({ outcome: 'SEALED', freshness: { state: 'PROVEN', witnessing: 'UNWITNESSED' } });
  });

  it('never integrated within --timeout: SEALED, freshness SEALED_AWAITING_INTEGRATION, exit 3 with the reason on stderr', async () => {
    const { run, json } = await publishWait({});
    expect(run.exitCode).toBe(3);
    expect(json).toMatchObject({ outcome: 'SEALED', freshness: { state: 'SEALED_AWAITING_INTEGRATION' } });
    expect(run.stderr).toMatch(/sealed, awaiting integration: .*after 5 s/);
  });

  it('--policy that the published deployment checkpoint does not meet: freshness REFUSED, exit 20', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reseal-policy-'));
    writeFileSync(join(dir, 'policy.txt'), (await witnessedTestPolicy()).text);
    const { run, json } = await publishWait({
      integrateAtSleep: 1,
      args: ['--policy', join(dir, 'policy.txt')],
      setup: async (s) => {
        await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
        await s.integrate();
      },
    });
    expect(run.exitCode).toBe(20);
    expect(json.freshness?.state).toBe('REFUSED');
    expect(run.stderr).toMatch(/tamper risk: the deployment log does not prove this write \(REFUSED\)/);
  });

  it('its residual-id marker deleted by a table writer, integrated meanwhile: tamper risk, exit 20 (not 1, "no outcome")', async () => {
    const { run } = await publishWait({
      integrateAtSleep: 1,
      afterSeal: (s) => s.store.markers.delete(markerKey(LINEAGE, 'r-9')),
    });
    expect(run.exitCode, run.stderr).toBe(20);
    expect(run.stderr).toMatch(
      /tamper risk: residual r-9 .* has no residual-id marker in the table, but UNVERIFIED_TAMPER_RISK: the index maps residual r-9 to seq 0/,
    );
  });

  it('its marker deleted before any integration: the seal is found in the signed lineage log, exit 20', async () => {
    const { run } = await publishWait({ afterSeal: (s) => s.store.markers.delete(markerKey(LINEAGE, 'r-9')) });
    expect(run.exitCode, run.stderr).toBe(20);
    expect(run.stderr).toMatch(/tamper risk: .*sealed at seq 0, proven in the lineage's signed checkpoint/);
  });

  /** A table writer's edit: a LINEAGE_INCONSISTENT conflict the sealer signed for this very request (a marker pointed away for a resend). */
  const sealerConflict = async (s: ReturnType<typeof integratedStack>) => {
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-9' });
    await s.store.recordConflict(
      await signedConflict('r-9', {
        lineageId: LINEAGE,
        reason: 'LINEAGE_INCONSISTENT',
        detail: 'residual id r-9 is marked as sealed in lineage other',
        requestDigest: requestDigest(request),
        atMs: s.clock.now,
      }),
    );
  };

  it('sealed in a head the sealer MAC’d beside a conflict the sealer signed for it, never integrated: tamper risk naming both, exit 20 (not 10)', async () => {
    const { run, json } = await publishWait({ macHeads: true, afterSeal: sealerConflict });
    expect(run.exitCode, run.stderr).toBe(20);
    expect(json).toBeNull();
    expect(run.stderr).toMatch(
      /tamper risk: residual r-9 .* is marked sealed at seq 0, but UNVERIFIED_TAMPER_RISK: its seal \(seq 0, .*\) stands beside a LINEAGE_INCONSISTENT conflict .* the sealer signed for this very request/,
    );
  });

  it('the same, integrated while it waits: SEALED, freshness PROVEN, exit 0', async () => {
    const { run, json } = await publishWait({ macHeads: true, afterSeal: sealerConflict, integrateAtSleep: 2 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(json).toMatchObject({ outcome: 'SEALED', freshness: { state: 'PROVEN' } });
  });
});

/** A format-2 receipt of seq 1 written by `reseal export --receipt`, its published note cosigned `agoSeconds` before the CLI's clock. */
async function exportedReceipt(agoSeconds: number) {
  const s = integratedStack();
  s.clock.now = CLI_TEST_NOW_MS;
  for (const r of ['r-0', 'r-1']) await s.send({ lineageId: LINEAGE, residualId: r });
  await s.integrate();
  const head = s.deployment.head;
  if (!head?.published) throw new Error('nothing published');
  s.deployment.head = {
    ...head,
    published: await cosignedByTestWitness(head.published, Math.floor(CLI_TEST_NOW_MS / 1000) - agoSeconds),
  };
  const dir = mkdtempSync(join(tmpdir(), 'reseal-receipt-v2-'));
  writeFileSync(join(dir, 'policy.txt'), (await witnessedTestPolicy()).text);
  const exported = await runCli(
    [
      'export',
      '--lineage',
      LINEAGE,
      '--receipt',
      '--seq',
      '1',
      '--out',
      'r.json',
      '--policy',
      'policy.txt',
      '--max-age-seconds',
      '100000',
    ],
    { cwd: dir, connect: async (_stack, _store, _writer, policy) => s.client({ deps: policy ? { policy } : {} }) },
  );
  expect(exported.exitCode, exported.stderr).toBe(0);
  return dir;
}

const verify = (dir: string, args: string[]) =>
  runCli(['verify', '--receipt', 'r.json', '--json', ...args], { cwd: dir, env: {} });

describe('reseal verify --receipt (format 2) offline with --policy [--max-age-seconds]', () => {
  it('verifies with the policy; --max-age-seconds checks the cosignature time; without it only inclusion is proven', async () => {
    const dir = await exportedReceipt(600);
    const receipt = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    expect(receipt.formatVersion).toBe(2);
    const plain = await verify(dir, ['--policy', 'policy.txt']);
    expect(plain.exitCode, plain.stdout).toBe(0);
    // The reseal.receipt-verification/1 shape exactly (docs/cli.md, "One shape per concept").
    expect(ReceiptVerificationShape.parse(JSON.parse(plain.stdout))).toEqual(JSON.parse(plain.stdout));
    expect(JSON.parse(plain.stdout).freshness.quorumTime).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(JSON.parse(plain.stdout)).toMatchObject({
      format: 'reseal.receipt-verification/1',
      verdict: 'VERIFIED_INTACT',
      receiptFormat: 2,
      seq: 1,
      freshness: { checked: false, witnessing: 'WITNESSED', ageSeconds: 600, refusal: null },
    });
    const fresh = await verify(dir, ['--policy', 'policy.txt', '--max-age-seconds', '900']);
    expect(fresh.exitCode).toBe(0);
    expect(JSON.parse(fresh.stdout).freshness).toMatchObject({ checked: true, maxAgeSeconds: 900 });
    const stale = await verify(dir, ['--policy', 'policy.txt', '--max-age-seconds', '180']);
    expect(stale.exitCode).toBe(20);
    expect(JSON.parse(stale.stdout)).toMatchObject({
      verdict: 'UNVERIFIED_TAMPER_RISK',
      freshness: { refusal: 'COSIGNATURES_TOO_OLD' },
    });
  });

  // docs/cli.md, "Time units": the former name still works, in seconds, with a note; both is bad input.
  it('the former --max-age still checks the age in seconds, with a one-line note naming --max-age-seconds; both names is exit 2', async () => {
    const dir = await exportedReceipt(600);
    const former = await verify(dir, ['--policy', 'policy.txt', '--max-age', '180']);
    expect(former.exitCode).toBe(20);
    expect(JSON.parse(former.stdout).freshness).toMatchObject({ refusal: 'COSIGNATURES_TOO_OLD' });
    expect(former.stderr).toBe('reseal: --max-age is now --max-age-seconds (seconds); --max-age still works for now\n');
    const both = await verify(dir, ['--policy', 'policy.txt', '--max-age', '180', '--max-age-seconds', '180']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('give --max-age-seconds or --max-age, not both');
    const help = await runCli(['verify', '--help'], { cwd: dir, env: {} });
    expect(help.stdout).toContain('--max-age-seconds <s>');
    expect(help.stdout).not.toMatch(/--max-age </);
  });

  it('--log-key alone checks it under quorum none (inclusion, UNWITNESSED); neither a policy nor a key is exit 2', async () => {
    const dir = await exportedReceipt(10);
    const byKey = await verify(dir, ['--log-key', formatVerifierKey(TEST_LOG_KEY)]);
    expect(byKey.exitCode).toBe(0);
    expect(JSON.parse(byKey.stdout).freshness).toMatchObject({ checked: false, witnessing: 'UNWITNESSED' });
    const neither = await verify(dir, []);
    expect(neither.exitCode).toBe(2);
  });
});

// A format-1 receipt carries no deployment chain: under a policy with a quorum it fails closed, and
// under quorum none it says freshness was not checked (docs/cli.md, `verify --receipt`).
describe('reseal verify --receipt (format 1) with --policy', () => {
  async function formatOne() {
    const dir = await exportedReceipt(10);
    const s = integratedStack();
    for (const r of ['r-0', 'r-1']) await s.send({ lineageId: LINEAGE, residualId: r });
    // Format 1 is produced while the head carries a signed lineage checkpoint (docs/verifiable-log.md, "Receipts").
    const exported = await runCli(
      ['export', '--lineage', LINEAGE, '--receipt', '--seq', '1', '--receipt-format', '1', '--out', 'r.json'],
      { cwd: dir, connect: async () => s.client() },
    );
    expect(exported.exitCode, exported.stderr).toBe(0);
    return dir;
  }

  it('a witnessed policy: POLICY_NOT_MET, exit 20, never VERIFIED_INTACT with no freshness', async () => {
    const dir = await formatOne();
    const run = await verify(dir, ['--policy', 'policy.txt', '--max-age-seconds', '60']);
    expect(run.exitCode).toBe(20);
    const json = JSON.parse(run.stdout);
    expect(json).toMatchObject({
      verdict: 'UNVERIFIED_TAMPER_RISK',
      receiptFormat: 1,
      freshness: { checked: false, witnessing: 'WITNESSED', refusal: 'POLICY_NOT_MET' },
    });
    expect(json.reason).toMatch(/format-1 receipt carries no deployment chain.*export format 2/);
  });

  it('quorum none: verified, and freshness says it was not checked', async () => {
    const dir = await formatOne();
    writeFileSync(join(dir, 'none.txt'), (await unwitnessedTestPolicy()).text);
    const json = await verify(dir, ['--policy', 'none.txt']);
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout).freshness).toMatchObject({
      checked: false,
      witnessing: 'UNWITNESSED',
      refusal: null,
    });
    const text = await runCli(['verify', '--receipt', 'r.json', '--policy', 'none.txt'], { cwd: dir, env: {} });
    expect(text.stdout).toMatch(/freshness: +not checked: a format-1 receipt carries no deployment chain/);
  });
});
