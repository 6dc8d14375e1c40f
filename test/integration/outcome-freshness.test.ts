import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { LineageKeys } from '../../adapters/lineage-keys';
import { UnverifiedOutcomeError } from '../../client/errors';
import { type FreshnessPolicy, freshnessPolicy } from '../../client/freshness-policy';
import { ResealClient } from '../../client/reseal-client';
import { clientOutputsFrom } from '../../client/stack-outputs';
import type { WriteOutcome } from '../../client/write-outcomes';
import { guardKeyName } from '../../shared/log/log-names';
import { rejectionStatement, signOutcome } from '../../shared/log/outcome-statement';
import { formatCosignerKey } from '../../shared/witness/cosigner-key';
import { requestDigest } from '../../shared/write/request-digest';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { acceptedWrite, coldSealer, sealGroup } from '../helpers/emulator-lineages';
import { expectGuarantees } from '../helpers/guarantees';
import { cosignedByTestWitness } from '../helpers/integrated-stack';
import { staleRejection } from '../helpers/outcome-factories';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { stackIntegrator } from '../helpers/stack-integrator';
import { mcpRecall } from '../helpers/tamper-mcp-readers';
import { partitionsOf } from '../helpers/tamper-table';
import { testCosignerKey } from '../helpers/witness-factories';
import { testLineageId } from '../helpers/writer-factories';
import { CLI_TEST_NOW_MS, runCli } from '../unit/cli/run-cli';
import { emulatorSetup, MANIFEST } from './tamper/fixture';

// Write outcomes, receipts and the MCP tools proven through the deployment log
// (docs/deployment-log.md, "Clients"; docs/verifiable-log.md, "Receipts"), on the deployed stack
// with NO kept checkpoint: the sealer and the integrator run in process on the stack's table and
// keys (the integrator driven directly, as in fresh-client.test.ts), the readers are the real CLI,
// client and MCP server over the same table, with the stack's default policy (UNWITNESSED) unless
// a row says otherwise.
const setup = emulatorSetup();
const notices = new SealedRunNotices();
const sealer = coldSealer(setup, { notifier: notices });

/** Integrates the collected notices (a lost condition is retried); the evidence it raised. */
async function integrate(): Promise<string[]> {
  const report = await notices.integrateRetrying(() => stackIntegrator(setup));
  return report.evidence.map((e) => e.kind);
}

async function seal(writes: readonly ResidualWriteRequest[]): Promise<void> {
  expect(await sealGroup(sealer, writes, Date.now())).toEqual(writes.map(() => 'SEALED'));
}

/**
 * A client of the deployed stack whose queue seals each published write in process (once: a write
 * whose marker is there already is left as it is), with `policy` when given.
 */
function sealingClient(policy?: FreshnessPolicy): ResealClient {
  const sqs = {
    send: async (command: { input: { MessageBody?: string } }) => {
      const request = JSON.parse(command.input.MessageBody ?? '{}') as ResidualWriteRequest;
      if (!(await setup.store.findByResidualId(request.lineageId, request.residualId))) await seal([request]);
      return { MessageId: `m-${randomUUID()}` };
    },
  };
  return new ResealClient(clientOutputsFrom({ ...setup.stack }), {
    dynamodb: setup.dynamodb,
    kms: setup.kms,
    sqs: sqs as never,
    ...(policy ? { policy } : {}),
  });
}

const cliEnv = { AWS_ENDPOINT_URL: setup.endpoint, AWS_REGION: setup.region };
const connect = async (_stack: string, _store: string | null, _writer: unknown, policy?: FreshnessPolicy) =>
  sealingClient(policy);

/**
 * `reseal publish --wait --json` of `request`: `exit <code> <outcome> <freshness state>`, or
 * `exit <code> tamper risk <verdict>` when it printed no outcome but a tamper finding.
 */
async function publishWait(request: ResidualWriteRequest, timeoutSeconds: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'reseal-outcome-fresh-'));
  writeFileSync(join(dir, 'request.json'), JSON.stringify(request));
  const run = await runCli(
    ['publish', '--request', 'request.json', '--wait', '--timeout-seconds', String(timeoutSeconds), '--json'],
    { cwd: dir, env: cliEnv, connect },
  );
  const finding = /tamper risk: .*?, but ([A-Z_]+):/.exec(run.stderr);
  if (run.stdout === '' && finding) return `exit ${run.exitCode} tamper risk ${finding[1]}`;
  const json = JSON.parse(run.stdout) as { outcome: string; freshness: { state: string } | null };
  return `exit ${run.exitCode} ${json.outcome} ${json.freshness?.state ?? 'no freshness'}`;
}

/**
 * `ResealClient.waitForOutcome` of `request` (published first): `<outcome> <freshness state>`, or
 * `UnverifiedOutcomeError <verdict>` when the table contradicts the seal.
 */
async function clientOutcome(request: ResidualWriteRequest, untilProven: boolean): Promise<string> {
  const client = sealingClient();
  await client.publishWrite(request);
  let outcome: WriteOutcome;
  try {
    outcome = await client.waitForOutcome(request.lineageId, request.residualId, {
      request,
      timeoutMs: 5000,
      untilProven,
    });
  } catch (error) {
    if (error instanceof UnverifiedOutcomeError) return `UnverifiedOutcomeError ${error.verdict}`;
    throw error;
  }
  return `${outcome.kind} ${outcome.kind === 'SEALED' ? (outcome.freshness?.state ?? 'no freshness') : ''}`.trim();
}

/** `reseal export --receipt` (format 2) of `seq` into a fresh directory, with the stack's default policy in `policy.txt`. */
async function exportReceipt(lineageId: string, seq: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'reseal-receipt-chain-'));
  const policy = await runCli(['policy'], { cwd: dir, env: cliEnv, connect });
  expect(policy.exitCode, policy.stderr).toBe(0);
  writeFileSync(join(dir, 'policy.txt'), policy.stdout);
  const exported = await runCli(
    ['export', '--lineage', lineageId, '--receipt', '--seq', String(seq), '--out', 'r.json'],
    { cwd: dir, env: cliEnv, connect },
  );
  expect(exported.exitCode, exported.stderr).toBe(0);
  return dir;
}

/** `reseal verify --receipt FILE --json …` offline (no endpoint): `exit <code> <verdict>[ <refusal>]`. */
async function verifyReceipt(dir: string, file: string, args: readonly string[]): Promise<string> {
  const run = await runCli(['verify', '--receipt', file, '--json', ...args], { cwd: dir, env: {} });
  const json = JSON.parse(run.stdout) as { verdict: string; freshness: { refusal: string | null } | null };
  return `exit ${run.exitCode} ${json.verdict}${json.freshness?.refusal ? ` ${json.freshness.refusal}` : ''}`;
}

function row(context: TestContext, target: string, attack: string, reader: string, expected: string, observed: string) {
  expectGuarantees(context, [
    { guarantee: { section: 'tampering', target, attack, reader, checkpoint: false, expected }, observed },
  ]);
}

/**
 * The rows of a seal awaiting integration contested by a refusal signed for the same request:
 * `publish --wait` and `client.waitForOutcome` answer `before` until the seal is integrated, and
 * once it is PROVEN the seal wins over everything (docs/pipeline.md, "Polling the table").
 */
async function contestedSealRows(
  context: TestContext,
  attack: string,
  request: ResidualWriteRequest,
  before: { readonly cli: string; readonly client: string },
): Promise<void> {
  row(context, 'write outcome', attack, 'publish --wait', before.cli, await publishWait(request, 3));
  row(context, 'write outcome', attack, 'client.waitForOutcome', before.client, await clientOutcome(request, true));
  expect(await integrate()).toEqual([]);
  row(
    context,
    'write outcome',
    attack,
    'publish --wait (after integration)',
    'exit 0 SEALED PROVEN',
    await publishWait(request, 30),
  );
}

describe('write outcomes, receipts and MCP answers proven through the deployment log, cold readers', () => {
  let lineageId: string;

  beforeAll(async () => {
    lineageId = testLineageId(`outcome-fresh-${randomUUID()}`);
    const nowMs = Date.now();
    await seal(['r-0', 'r-1', 'r-2'].map((r) => acceptedWrite(lineageId, r, MANIFEST, nowMs)));
    expect(await integrate()).toEqual([]);
  });

  it('a write is SEALED_AWAITING_INTEGRATION until the integration, then PROVEN (publish --wait and client.waitForOutcome)', async (context) => {
    const nowMs = Date.now();
    const viaCli = acceptedWrite(lineageId, 'r-cli', MANIFEST, nowMs);
    const viaClient = acceptedWrite(lineageId, 'r-client', MANIFEST, nowMs);
    const attack = 'none: a write published, read before and after its integration';
    row(
      context,
      'write outcome',
      attack,
      'publish --wait (before integration)',
      'exit 3 SEALED SEALED_AWAITING_INTEGRATION',
      await publishWait(viaCli, 3),
    );
    row(
      context,
      'write outcome',
      attack,
      'client.waitForOutcome (before integration)',
      'SEALED SEALED_AWAITING_INTEGRATION',
      await clientOutcome(viaClient, false),
    );
    expect(await integrate()).toEqual([]);
    row(
      context,
      'write outcome',
      attack,
      'publish --wait (after integration)',
      'exit 0 SEALED PROVEN',
      await publishWait(viaCli, 30),
    );
    row(
      context,
      'write outcome',
      attack,
      'client.waitForOutcome (after integration)',
      'SEALED PROVEN',
      await clientOutcome(viaClient, true),
    );
  });

  it('a seal awaiting integration beside a guard refusal signed for the same request: REJECTED, exit 10, until the seal is PROVEN (publish --wait and client.waitForOutcome)', async (context) => {
    const refused = acceptedWrite(lineageId, 'r-refused', MANIFEST, Date.now());
    // Its record, marker and head as the sealer writes them: what a table writer can also put there
    // (a made-up head MAC no client checks) for a write the guard refused, before its integration.
    await seal([refused]);
    const unsigned = staleRejection('r-refused', {
      lineageId,
      requestDigest: requestDigest(refused),
      bodyPreview: '',
      messageId: `m-${randomUUID()}`,
      atMs: Date.now() + 60_000,
    });
    const guard = new KMSNoteSigner(setup.kms, setup.stack.GuardKeyArn, guardKeyName(setup.stack.LogName));
    const statement = await signOutcome(rejectionStatement(setup.stack.LogName, unsigned), guard);
    await setup.store.recordRejection({ ...unsigned, statement });
    const attack =
      "the seal of a write the guard refused, awaiting integration (record, marker and head: no signed checkpoint), beside the guard's signed refusal of that request";
    await contestedSealRows(context, attack, refused, { cli: 'exit 10 REJECTED no freshness', client: 'REJECTED' });
  });

  it('a seal awaiting integration beside a conflict the sealer signed for the same request (its marker pointed away for a resend, then back): tamper risk, exit 20, until the seal is PROVEN (publish --wait and client.waitForOutcome)', async (context) => {
    const contested = acceptedWrite(lineageId, 'r-contested', MANIFEST, Date.now());
    await seal([contested]);
    // The table writer points the sealed write's marker at another lineage, resends the very
    // request (the real sealer signs a LINEAGE_INCONSISTENT conflict naming it), then puts it back.
    const pk = LineageKeys.lineage(lineageId);
    const sk = LineageKeys.residualSk('r-contested');
    const marker = await setup.table.get(pk, sk);
    await setup.table.update(pk, sk, (item) => ({ ...item, lineageId: { S: testLineageId('elsewhere') } }));
    // Sent a little ahead (within the sealer's 5 s skew), so the conflict is no earlier attempt's.
    expect(await sealGroup(sealer, [contested], Date.now() + 3_000)).toEqual(['CONFLICT LINEAGE_INCONSISTENT']);
    await setup.table.put(marker);
    const attack =
      'the seal of a write, awaiting integration, beside a LINEAGE_INCONSISTENT conflict the sealer signed for that request (its marker pointed at another lineage for a resend, then put back)';
    await contestedSealRows(context, attack, contested, {
      cli: 'exit 20 tamper risk UNVERIFIED_TAMPER_RISK',
      client: 'UnverifiedOutcomeError UNVERIFIED_TAMPER_RISK',
    });
  });

  it('a residual id sealed twice (its marker deleted within the interval): the second seal is INCONSISTENT, exit 20', async (context) => {
    const nowMs = Date.now();
    const twice = acceptedWrite(lineageId, 'r-twice', MANIFEST, nowMs);
    await seal([twice]);
    await setup.table.delete(LineageKeys.lineage(lineageId), LineageKeys.residualSk('r-twice'));
    await seal([twice]);
    expect(await integrate()).toEqual(['RESIDUAL_CHANGED']);
    row(
      context,
      'residual marker',
      'delete the marker of a sealed residual id before its integration; the same write is sealed again',
      'publish --wait',
      'exit 20 SEALED INCONSISTENT',
      await publishWait(twice, 30),
    );
  });

  it('a receipt with the whole chain verifies offline with --policy; an edited index proof, a wrong checkpoint and cosignatures too old are refused', async (context) => {
    const dir = await exportReceipt(lineageId, 1);
    const receipt = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    expect(receipt.formatVersion).toBe(2);
    const rows: [string, string, readonly string[], string][] = [];
    rows.push([
      'none: a format-2 receipt of an integrated record',
      'r.json',
      ['--policy', 'policy.txt'],
      'exit 0 VERIFIED_INTACT',
    ]);
    const edited = structuredClone(receipt);
    const at = edited.index.lineage.proof.siblings.findIndex((s: string | null) => s !== null);
    const sibling = edited.index.lineage.proof.siblings[at] as string;
    edited.index.lineage.proof.siblings[at] = `${sibling[0] === '0' ? '1' : '0'}${sibling.slice(1)}`;
    writeFileSync(join(dir, 'edited-index.json'), JSON.stringify(edited));
    rows.push([
      'edit one hash of the index proof of the lineage entry',
      'edited-index.json',
      ['--policy', 'policy.txt'],
      'exit 20 UNVERIFIED_TAMPER_RISK INDEX_PROOF_INVALID',
    ]);
    // A later, genuine deployment checkpoint in place of the receipt's: its last leaf is another index root.
    await seal([acceptedWrite(lineageId, `r-later-${randomUUID()}`, MANIFEST, Date.now())]);
    expect(await integrate()).toEqual([]);
    const later = await new DynamoDBDeploymentLogStore(setup.dynamodb, setup.stack.TableName).readHead();
    const swapped = { ...receipt, deployment: { ...receipt.deployment, checkpoint: later?.published } };
    writeFileSync(join(dir, 'wrong-checkpoint.json'), JSON.stringify(swapped));
    rows.push([
      'replace the deployment checkpoint with a later genuine one',
      'wrong-checkpoint.json',
      ['--policy', 'policy.txt'],
      'exit 20 UNVERIFIED_TAMPER_RISK LEAF_NOT_LAST',
    ]);
    // Cosigned by a witness of the policy 1000 s before the verifier's clock: inclusion still proven, freshness not.
    const witness = `witness w1 ${formatCosignerKey(await testCosignerKey())}\n`;
    const logLine = readFileSync(join(dir, 'policy.txt'), 'utf8').split('\n')[0];
    writeFileSync(join(dir, 'witnessed.txt'), `${logLine}\n${witness}quorum w1\n`);
    const old = {
      ...receipt,
      deployment: {
        ...receipt.deployment,
        checkpoint: await cosignedByTestWitness(
          receipt.deployment.checkpoint,
          Math.floor(CLI_TEST_NOW_MS / 1000) - 1000,
        ),
      },
    };
    writeFileSync(join(dir, 'old.json'), JSON.stringify(old));
    rows.push([
      'none: cosignatures 1000 s old, no --max-age-seconds (inclusion only)',
      'old.json',
      ['--policy', 'witnessed.txt'],
      'exit 0 VERIFIED_INTACT',
    ]);
    rows.push([
      'cosignatures 1000 s old, --max-age-seconds 180',
      'old.json',
      ['--policy', 'witnessed.txt', '--max-age-seconds', '180'],
      'exit 20 UNVERIFIED_TAMPER_RISK COSIGNATURES_TOO_OLD',
    ]);
    const observed: string[] = [];
    for (const [, file, args] of rows) observed.push(await verifyReceipt(dir, file, args));
    expectGuarantees(
      context,
      rows.map(([attack, , , expected], i) => ({
        guarantee: {
          section: 'tampering',
          target: 'receipt',
          attack,
          reader: 'verify --receipt --policy',
          checkpoint: false,
          expected,
        },
        observed: observed[i] as string,
      })),
    );
    expect(freshnessPolicy(readFileSync(join(dir, 'witnessed.txt'), 'utf8')).witnessing).toBe('WITNESSED');
  });

  it('an older signed answer replayed as the latest (the lineage rolled back after a larger head was integrated) is refused through MCP', async (context) => {
    const rolled = testLineageId(`outcome-rolled-${randomUUID()}`);
    const nowMs = Date.now();
    await seal(['r-0', 'r-1'].map((r) => acceptedWrite(rolled, r, MANIFEST, nowMs)));
    const at2 = await setup.table.snapshot(partitionsOf(rolled));
    await seal(['r-2', 'r-3'].map((r) => acceptedWrite(rolled, r, MANIFEST, nowMs)));
    expect(await integrate()).toEqual([]);
    await setup.table.restore(at2);
    const observed = await mcpRecall.read(
      setup,
      {
        lineageId: rolled,
        trusted: { note: '', seq: 0, recordHash: '' },
        recall: { latest: true },
        receiptSeq: 0,
        write: acceptedWrite(rolled, 'r-0', MANIFEST, nowMs),
      },
      false,
    );
    row(
      context,
      'lineage (whole)',
      'restore head, records and markers to the signed state of 2 records after 4 were integrated; recall latest',
      'mcp reseal_recall',
      'TAMPER_DETECTED UNVERIFIED_TAMPER_RISK',
      observed,
    );
  });
});
