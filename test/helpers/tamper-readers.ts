/**
 * The readers of a tampering matrix (docs/guarantees.md, "Tampering by the table writer"): the `reseal` CLI's online commands run in process
 * (captured io, as test/unit/cli/run-cli.ts) and the client API, over the deployed stack's table
 * and KMS keys. Recalls go through the real triage function in process on the same table (its
 * `RecallRequested` is handed to `TriageService.handle` instead of EventBridge); writes are never
 * sent (a `publish --wait` is a redelivered write whose outcome is read from the table).
 * Each reader reports one short outcome, `exit <code> <verdict or outcome>` for the CLI.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { LogVerificationError } from '../../client/errors';
import { FileCheckpointStore } from '../../client/file-checkpoint-store';
import { MemoryCheckpointStore } from '../../client/memory-checkpoint-store';
import { ResealClient } from '../../client/reseal-client';
import type { StackOutputs } from '../../client/stack-outputs';
import { clientOutputsFrom } from '../../client/stack-outputs';
import { stackPinOf } from '../../client/stack-pin';
import { TriageService } from '../../functions/triage/triage-service';
import { STACK_NAME } from '../../scripts/emulator/deploy';
import type { LineagePolicy } from '../../shared/authorship/lineage-policy';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { guardKeyName, sealerKeyName } from '../../shared/log/log-names';
import type { RecallRequestedDetail } from '../../shared/pipeline/recall-requested-detail';
import type { WriterSigner } from '../../shared/ports/writer-signer';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { runCli } from '../unit/cli/run-cli';
import { FakeMetrics, FakePublisher, fakeLogger } from './factories';

/** What the readers read against: the deployed stack and the honest state of the attacked lineage. */
export interface ReaderSetup {
  readonly stack: StackOutputs;
  readonly endpoint: string;
  readonly region: string;
  readonly dynamodb: DynamoDBClient;
  readonly kms: Pick<KMSClient, 'send'>;
  /** The environment recalls are made in. */
  readonly currentEnv: Readonly<Record<string, string>>;
}

/** The honest lineage as a reader with a checkpoint trusts it (kept before the attack). */
export interface TrustedState {
  /** The latest signed checkpoint (a C2SP signed note), as a checkpoint store keeps it. */
  readonly note: string;
  /** The head as a `ResidualSealed` event carries it (`--checkpoint SEQ:HASH`). */
  readonly seq: number;
  readonly recordHash: string;
}

/** What one cell's readers look at. */
export interface ReadTarget {
  readonly lineageId: string;
  readonly trusted: TrustedState;
  /** The recall target (`latest` for head attacks, the attacked seq or residual id otherwise). */
  readonly recall: RecallRequestedDetail['target'];
  /** The record receipts are asked for. */
  readonly receiptSeq: number;
  /** A write already sealed (or refused) in the lineage, as published: what `publish --wait` waits for. */
  readonly write: ResidualWriteRequest;
  /** Runs between the recall request and triage's answer being read: a table writer's move on the report. */
  readonly onRecall?: (detail: RecallRequestedDetail, triage: () => Promise<void>) => Promise<void>;
}

/** A reader of the matrix: its name as docs/guarantees.md shows it, and how it reads. */
export interface Reader {
  readonly name: string;
  /** False for a reader that takes no trusted checkpoint (it is read once, without). Default true. */
  readonly takesCheckpoint?: boolean;
  /** True for a reader that writes (the sealer's next append): it runs alone, after the others. */
  readonly exclusive?: boolean;
  readonly read: (setup: ReaderSetup, target: ReadTarget, withCheckpoint: boolean) => Promise<string>;
}

const CLI_TIMEOUT_S = 2;

/** A fresh working directory with `env.json`, `write.json` and, with a checkpoint, a seeded `checkpoints.json`. */
async function workDir(setup: ReaderSetup, target: ReadTarget, withCheckpoint: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'reseal-tamper-'));
  writeFileSync(join(dir, 'env.json'), JSON.stringify(setup.currentEnv));
  writeFileSync(join(dir, 'write.json'), JSON.stringify(target.write));
  if (withCheckpoint) {
    await new FileCheckpointStore(join(dir, 'checkpoints.json')).save(
      checkpointOrigin(setup.stack.LogName, target.lineageId),
      target.trusted.note,
    );
  }
  return dir;
}

/** The in-process triage function over the deployed table and log key. */
function triageOf(setup: ReaderSetup): TriageService {
  const key = new KMSNoteVerifierKey(setup.kms, setup.stack.LogKeyArn, setup.stack.LogName);
  return new TriageService({
    store: new DynamoDBLineageStore(setup.dynamodb, setup.stack.TableName),
    publisher: new FakePublisher(),
    logKey: () => key.get(),
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: Date.now,
  });
}

/**
 * A client over the deployed table and keys; recalls answered by {@link triageOf}, writes dropped.
 * With `writer`, it signs what it publishes (the MCP server's `reseal_write` needs one).
 */
export function clientOf(
  setup: ReaderSetup,
  target: ReadTarget,
  checkpointStore: FileCheckpointStore | MemoryCheckpointStore | null,
  writer?: { readonly writer: WriterSigner; readonly inceptionPolicy: LineagePolicy },
): ResealClient {
  const triage = triageOf(setup);
  const eventBridge = {
    send: async (command: { input: { Entries: { Detail: string }[] } }) => {
      for (const entry of command.input.Entries) {
        const detail = JSON.parse(entry.Detail) as RecallRequestedDetail;
        const answer = async () => {
          await triage.handle(detail);
        };
        await (target.onRecall ? target.onRecall(detail, answer) : answer());
      }
      return { FailedEntryCount: 0, Entries: [{ EventId: 'event-1' }] };
    },
  };
  const sqs = { send: async () => ({ MessageId: `m-redelivered-${Date.now()}` }) };
  return new ResealClient(clientOutputsFrom({ ...setup.stack }), {
    dynamodb: setup.dynamodb,
    kms: setup.kms,
    eventBridge: eventBridge as never,
    sqs: sqs as never,
    ...(checkpointStore ? { checkpointStore } : {}),
    ...(writer ?? {}),
  });
}

/** Runs the CLI in `dir` against the stack, its client from {@link clientOf}. */
function cli(setup: ReaderSetup, target: ReadTarget, dir: string, argv: readonly string[]) {
  return runCli(argv, {
    cwd: dir,
    env: {
      AWS_ENDPOINT_URL: setup.endpoint,
      AWS_REGION: setup.region,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    },
    connect: async (_stack, storePath) =>
      clientOf(setup, target, storePath ? new FileCheckpointStore(storePath) : null),
  });
}

/** The verdicts a reader may name (shared/seal/verification-verdict.ts), first one named wins. */
const VERDICT =
  /\b(VERIFIED_INTACT|HASH_MISMATCH|LINEAGE_BROKEN|SEQUENCE_REPLAYED|TRUNCATION_DETECTED|UNVERIFIED_TAMPER_RISK)\b/;

/**
 * `exit <code> <what>`: `what` from the `--json` output (`pick`), else from stderr: the verdict
 * it names, `not found`, `TIMEOUT` for a wait with no answer, or nothing.
 */
function outcome(
  run: { exitCode: number; stdout: string; stderr: string },
  pick: (json: Record<string, unknown>) => unknown,
): string {
  let what: unknown;
  try {
    what = pick(JSON.parse(run.stdout) as Record<string, unknown>);
  } catch {
    what = undefined;
  }
  if (typeof what !== 'string') {
    const verdict = VERDICT.exec(run.stderr)?.[1];
    if (verdict) what = verdict;
    else if (/not found/.test(run.stderr)) what = 'not found';
    else if (/no outcome|no triage report|timed out/i.test(run.stderr)) what = 'TIMEOUT';
    else what = '';
  }
  return `exit ${run.exitCode} ${what}`.trim();
}

const storeArgs = (withCheckpoint: boolean) => (withCheckpoint ? ['--checkpoint-store', 'checkpoints.json'] : []);
const headArgs = (target: ReadTarget, withCheckpoint: boolean) =>
  withCheckpoint ? ['--checkpoint', `${target.trusted.seq}:${target.trusted.recordHash}`] : [];
const recallArgs = (recall: ReadTarget['recall']) =>
  'seq' in recall ? ['--seq', String(recall.seq)] : 'residualId' in recall ? ['--residual-id', recall.residualId] : [];

/** A client error's class name, else its result. */
async function settled(work: () => Promise<string>): Promise<string> {
  try {
    return await work();
  } catch (error) {
    return error instanceof Error ? error.name : String(error);
  }
}

/** A memory checkpoint store seeded with the trusted checkpoint, or none. */
export async function memoryStore(setup: ReaderSetup, target: ReadTarget, withCheckpoint: boolean) {
  if (!withCheckpoint) return null;
  const store = new MemoryCheckpointStore();
  await store.save(checkpointOrigin(setup.stack.LogName, target.lineageId), target.trusted.note);
  return store;
}

/**
 * A reader that runs one CLI command in the target's work directory (`argvOf` its arguments) and
 * names the outcome `pick` takes from its `--json` output (else from stderr, as {@link outcome}).
 */
function cliReader(
  name: string,
  argvOf: (target: ReadTarget, withCheckpoint: boolean) => readonly string[],
  pick: (json: Record<string, unknown>) => unknown = (json) => json.verdict,
): Reader {
  return {
    name,
    read: async (setup, target, withCheckpoint) => {
      const dir = await workDir(setup, target, withCheckpoint);
      return outcome(await cli(setup, target, dir, argvOf(target, withCheckpoint)), pick);
    },
  };
}

/** `reseal verify --lineage L --json`, by the signed tree (with a checkpoint: `--checkpoint-store` and `--checkpoint`). */
export const verifyLineageCli: Reader = cliReader('verify --lineage', (target, withCheckpoint) => [
  'verify',
  '--lineage',
  target.lineageId,
  '--json',
  ...storeArgs(withCheckpoint),
  ...headArgs(target, withCheckpoint),
]);

/** `reseal verify --lineage L --audit-macs --json`: the MAC audit, one KMS `VerifyMac` per record (with a checkpoint: as {@link verifyLineageCli}). */
export const verifyLineageAuditCli: Reader = cliReader('verify --lineage --audit-macs', (target, withCheckpoint) => [
  'verify',
  '--lineage',
  target.lineageId,
  '--audit-macs',
  '--json',
  ...storeArgs(withCheckpoint),
  ...headArgs(target, withCheckpoint),
]);

/** `reseal verify --lineage L --json` with only the kept checkpoint (`--checkpoint-store`), no `--checkpoint`. */
export const verifyLineageKeptCli: Reader = cliReader(
  'verify --lineage --checkpoint-store',
  (target, withCheckpoint) => ['verify', '--lineage', target.lineageId, '--json', ...storeArgs(withCheckpoint)],
);

/** `reseal inspect --lineage L --json` (with a checkpoint: `--checkpoint-store` and `--checkpoint`). */
export const inspectLineageCli: Reader = cliReader(
  'inspect --lineage',
  (target, withCheckpoint) => [
    'inspect',
    '--lineage',
    target.lineageId,
    '--json',
    ...storeArgs(withCheckpoint),
    ...headArgs(target, withCheckpoint),
  ],
  (json) => json.verdict ?? (json.chain as { verdict?: unknown } | undefined)?.verdict,
);

/** `reseal recall --lineage L --env env.json --json` on the target (with a checkpoint: `--checkpoint-store`). */
export const recallCli: Reader = cliReader(
  'recall',
  (target, withCheckpoint) => [
    'recall',
    '--lineage',
    target.lineageId,
    ...recallArgs(target.recall),
    '--env',
    'env.json',
    '--json',
    '--timeout-seconds',
    String(CLI_TIMEOUT_S),
    ...storeArgs(withCheckpoint),
  ],
  (json) => (json.verification as { verdict?: unknown } | null)?.verdict ?? json.refusalCode,
);

/** `reseal publish --request write.json --wait --json` of a write already in the table (with a checkpoint: `--checkpoint-store`). */
export const publishWaitCli: Reader = cliReader(
  'publish --wait',
  (_target, withCheckpoint) => [
    'publish',
    '--request',
    'write.json',
    '--wait',
    '--timeout-seconds',
    String(CLI_TIMEOUT_S),
    '--json',
    ...storeArgs(withCheckpoint),
  ],
  (json) => json.outcome,
);

/** `reseal export --lineage L`, then `reseal verify --export` of it with the stack's MAC key pinned. */
export const exportThenVerifyCli: Reader = {
  name: 'export + verify --export',
  read: async (setup, target, withCheckpoint) => {
    const dir = await workDir(setup, target, withCheckpoint);
    const exported = await cli(setup, target, dir, [
      'export',
      '--lineage',
      target.lineageId,
      '--out',
      'lineage.json',
      ...storeArgs(withCheckpoint),
    ]);
    if (exported.exitCode !== 0) return `export ${outcome(exported, () => undefined)}`;
    const argv = [
      'verify',
      '--export',
      'lineage.json',
      '--key-id',
      setup.stack.MacKeyArn,
      '--json',
      ...headArgs(target, withCheckpoint),
    ];
    return outcome(await cli(setup, target, dir, argv), (json) => json.verdict);
  },
};

/** `reseal export --lineage L --receipt --seq N`, then `reseal verify --receipt` offline with the log key. */
export const receiptCli: Reader = {
  name: 'export --receipt + verify --receipt',
  read: async (setup, target, withCheckpoint) => {
    const dir = await workDir(setup, target, withCheckpoint);
    const argv = [
      'export',
      '--lineage',
      target.lineageId,
      '--receipt',
      // The lineage-checkpoint receipt: the rows of this reader are about the lineage's own log.
      '--receipt-format',
      '1',
      '--seq',
      String(target.receiptSeq),
      '--out',
      'r.json',
      ...storeArgs(withCheckpoint),
    ];
    const exported = await cli(setup, target, dir, argv);
    if (exported.exitCode !== 0) return `export ${outcome(exported, () => undefined)}`;
    const logKey = (await cli(setup, target, dir, ['log-key'])).stdout.trim();
    const checked = await runCli(['verify', '--receipt', 'r.json', '--log-key', logKey, '--json'], {
      cwd: dir,
      env: {},
    });
    return outcome(checked, (json) => json.verdict);
  },
};

/** `ResealClient.recall` of the target (with a checkpoint: a seeded checkpoint store). */
export const clientRecall: Reader = {
  name: 'client.recall',
  read: (setup, target, withCheckpoint) =>
    settled(async () => {
      const client = clientOf(setup, target, await memoryStore(setup, target, withCheckpoint));
      const recall = await client.recall(
        { lineageId: target.lineageId, target: target.recall, currentEnv: setup.currentEnv },
        { timeoutMs: CLI_TIMEOUT_S * 1000 },
      );
      return recall.verdict ?? `refused ${recall.refusal?.code ?? '?'} (unproven)`;
    }),
};

/**
 * `ResealClient.recallDirect` of the target (with a checkpoint: a seeded checkpoint store): the
 * client's own answer, built from its reads of the table with no triage round trip
 * (docs/verifiable-log.md, "Recall", "Without triage"), decided as `client.recall` decides triage's.
 */
export const clientRecallDirect: Reader = {
  name: 'client.recallDirect',
  read: (setup, target, withCheckpoint) =>
    settled(async () => {
      const client = clientOf(setup, target, await memoryStore(setup, target, withCheckpoint));
      const recall = await client.recallDirect({
        lineageId: target.lineageId,
        target: target.recall,
        currentEnv: setup.currentEnv,
      });
      return recall.verdict ?? `refused ${recall.refusal?.code ?? '?'} (unproven)`;
    }),
};

/**
 * `ResealClient.verifyLineage` tied to the signed log by `checkWalkAgainstLog`, the client's
 * lineage verification as `reseal verify --lineage` composes it (with a checkpoint: a seeded
 * checkpoint store and the head as `checkpoint`).
 */
export const clientVerifyLineage: Reader = {
  name: 'client.verifyLineage + checkWalkAgainstLog',
  read: (setup, target, withCheckpoint) =>
    settled(async () => {
      const client = clientOf(setup, target, await memoryStore(setup, target, withCheckpoint));
      const checkpoint = { seq: target.trusted.seq, recordHash: target.trusted.recordHash };
      const walked = await client.verifyLineage(target.lineageId, withCheckpoint ? { checkpoint } : {});
      return (await client.checkWalkAgainstLog(target.lineageId, walked)).verification.verdict;
    }),
};

/** `ResealClient.waitForOutcome` of the write (with a checkpoint: a seeded checkpoint store). */
export const clientWaitForOutcome: Reader = {
  name: 'client.waitForOutcome',
  read: (setup, target, withCheckpoint) =>
    settled(async () => {
      const client = clientOf(setup, target, await memoryStore(setup, target, withCheckpoint));
      const { lineageId, residualId } = target.write;
      const outcome = await client.waitForOutcome(lineageId, residualId, {
        request: target.write,
        timeoutMs: CLI_TIMEOUT_S * 1000,
      });
      return outcome.kind === 'SEALED' ? `SEALED seq ${outcome.head.seq}` : `${outcome.kind}`;
    }),
};

/** One listed refusal as `<reason> signed|unsigned` (`?` when the listing does not say). */
export function listedRefusal(reason: unknown, signed: unknown): string {
  return `${String(reason)} ${signed === true ? 'signed' : signed === false ? 'unsigned' : '?'}`;
}

/**
 * `reseal inspect --lineage L --json` of the awaited write's lineage, read for its listing of
 * rejections and conflicts (docs/cli.md, `inspect --lineage`): `exit <code> rejections [<reason>
 * signed|unsigned, …] conflicts […]`, oldest first. It takes no checkpoint (the listing does not
 * depend on one).
 */
export const inspectRefusalsCli: Reader = {
  name: 'inspect --lineage (refusals listed)',
  takesCheckpoint: false,
  read: async (setup, target) => {
    const dir = await workDir(setup, target, false);
    const run = await cli(setup, target, dir, ['inspect', '--lineage', target.write.lineageId, '--json']);
    type Items = Record<string, unknown>[] | undefined;
    let json: { rejections?: Items; conflicts?: Items; untrusted?: { rejections?: Items; conflicts?: Items } };
    try {
      json = JSON.parse(run.stdout);
    } catch {
      return outcome(run, () => undefined);
    }
    // Signed items are listed as such; unsigned ones only under `untrusted` (docs/cli.md, "Untrusted data").
    const merged = (signed: Items, unsigned: Items, at: string) =>
      [...(signed ?? []), ...(unsigned ?? [])]
        .map((item) => ({ item, ms: Date.parse(String(item[at])) }))
        .sort((a, b) => a.ms - b.ms)
        .map(({ item }) => item);
    const list = (items: Record<string, unknown>[]) =>
      `[${items.map((item) => listedRefusal(item.reason, item.signatureVerified)).join(', ')}]`;
    const rejections = merged(json.rejections, json.untrusted?.rejections, 'rejectedAt');
    const conflicts = merged(json.conflicts, json.untrusted?.conflicts, 'conflictedAt');
    return `exit ${run.exitCode} rejections ${list(rejections)} conflicts ${list(conflicts)}`;
  },
};

/**
 * `ResealClient.exportLineage`, then `ResealClient.verifyExport` of it: the client's own check of
 * an export (records and the head read with them), with a checkpoint the trusted head as
 * `checkpoint` and a seeded checkpoint store. A `LogVerificationError` reads `<name> <verdict>`.
 */
export const clientVerifyExport: Reader = {
  name: 'client.exportLineage + verifyExport',
  read: (setup, target, withCheckpoint) =>
    settled(async () => {
      const client = clientOf(setup, target, await memoryStore(setup, target, withCheckpoint));
      const checkpoint = { seq: target.trusted.seq, recordHash: target.trusted.recordHash };
      try {
        const exported = await client.exportLineage(target.lineageId);
        return (await client.verifyExport(exported, withCheckpoint ? { checkpoint } : {})).verdict;
      } catch (error) {
        if (error instanceof LogVerificationError) return `${error.name} ${error.verdict}`;
        throw error;
      }
    }),
};

/**
 * `reseal inspect --lineage L` in text, as a terminal shows it: `exit <code> <chain verdict>;
 * <n> row(s) marked signed, <m> marked NOT signed; no raw control characters` (or `raw control
 * characters`). A row is a listing line (`  <time>  …`) ending in its signature marker: a forged
 * message that adds a line, or an ANSI sequence that erases one, changes the counts or the tail.
 */
export const inspectTextCli: Reader = {
  name: 'inspect --lineage (text, as a terminal shows it)',
  takesCheckpoint: false,
  read: async (setup, target) => {
    const dir = await workDir(setup, target, false);
    const run = await cli(setup, target, dir, ['inspect', '--lineage', target.write.lineageId]);
    const verdict = /^chain: +(\S+)$/m.exec(run.stdout)?.[1] ?? VERDICT.exec(run.stderr)?.[1] ?? '';
    const rows = (marker: string) =>
      run.stdout.split('\n').filter((line) => /^ {2}\S/.test(line) && line.endsWith(marker)).length;
    const signed = rows('(signature verified)');
    const unsigned = rows('do not trust)');
    // Any control character but the line feed that ends each line (ESC, CR, a lone bidi override).
    const raw = /[\p{Cc}\p{Cf}]/u.test(run.stdout.replaceAll('\n', ''));
    return `exit ${run.exitCode} ${verdict}; ${signed} row(s) marked signed, ${unsigned} marked NOT signed; ${raw ? 'raw control characters' : 'no raw control characters'}`;
  },
};

const runPython = promisify(execFile);
const REPO = join(import.meta.dirname, '..', '..');
/** The Python reader's script, run with the package's development venv (`node scripts/python-setup.mjs`) on this checkout's source. */
const PYTHON_READER = join(REPO, 'python', 'tests', 'online', 'tamper_reader.py');
const VENV_PYTHON = join(REPO, '.python-venv', 'bin', 'python');
let pinned: Promise<string> | null = null;

/** The stack pin file (the `reseal pin` format, the three verifier keys read once from KMS), written once per process. */
function stackPinFile(setup: ReaderSetup): Promise<string> {
  pinned ??= (async () => {
    const outputs = clientOutputsFrom({ ...setup.stack });
    const logKey = await new KMSNoteVerifierKey(setup.kms, outputs.logKeyArn, outputs.logName).get();
    const guardKey = await new KMSNoteVerifierKey(setup.kms, outputs.guardKeyArn, guardKeyName(outputs.logName)).get();
    const sealerKey = await new KMSNoteVerifierKey(
      setup.kms,
      outputs.sealerKeyArn,
      sealerKeyName(outputs.logName),
    ).get();
    const file = join(mkdtempSync(join(tmpdir(), 'reseal-tamper-pin-')), 'stack.json');
    writeFileSync(
      file,
      `${JSON.stringify(stackPinOf({ stackName: STACK_NAME, outputs, logKey, guardKey, sealerKey }))}\n`,
    );
    return file;
  })();
  return pinned;
}

/**
 * Runs python/tests/online/tamper_reader.py with `args` after the stack pin, on the emulator
 * (see its docstring); its one output line, or `python failed: <last stderr line>`.
 */
export async function runPythonReader(setup: ReaderSetup, cwd: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await runPython(VENV_PYTHON, [PYTHON_READER, await stackPinFile(setup), ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        PYTHONPATH: join(REPO, 'python', 'src'),
        AWS_ENDPOINT_URL: setup.endpoint,
        AWS_REGION: setup.region,
        AWS_DEFAULT_REGION: setup.region,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
      },
      timeout: 120_000,
    });
    return stdout.trim();
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error);
    return `python failed: ${stderr.trim().split('\n').at(-1)}`;
  }
}

/**
 * The Python package's client (docs/python.md) in a subprocess: `proven_records` of the lineage
 * (what the framework adapters read as memory) and `receipt` of the receipt seq checked offline
 * with `verify_receipt`, cold or with the seeded checkpoint store, as
 * `records <outcome>; receipt <outcome>` (python/tests/online/tamper_reader.py).
 */
export const pythonClient: Reader = {
  name: 'python: proven_records + receipt',
  read: async (setup, target, withCheckpoint) => {
    const dir = await workDir(setup, target, withCheckpoint);
    return runPythonReader(setup, dir, [
      target.lineageId,
      'records',
      String(target.receiptSeq),
      ...(withCheckpoint ? [join(dir, 'checkpoints.json')] : []),
    ]);
  },
};

/**
 * The Python package's `recall` of the target (docs/python.md) in a subprocess, through EventBridge
 * and the deployed triage function, cold (it takes no checkpoint), with the stack's default
 * freshness policy: `<end> <verdict or -> <freshness state or "no freshness">`
 * (python/tests/online/tamper_reader.py).
 */
export const pythonRecall: Reader = {
  name: 'python: recall',
  takesCheckpoint: false,
  read: async (setup, target) => {
    const dir = await workDir(setup, target, false);
    return runPythonReader(setup, dir, [
      target.lineageId,
      'recall',
      JSON.stringify(target.recall),
      JSON.stringify(setup.currentEnv),
    ]);
  },
};
