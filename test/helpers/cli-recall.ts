import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointStore } from '../../client/file-checkpoint-store';
import { runCli } from '../unit/cli/run-cli';
import { clientOf, type ReaderSetup, type ReadTarget } from './tamper-readers';

/** The freshness block of a `reseal recall --json` answer (docs/deployment-log.md, "Clients"), as far as the tests read it. */
export interface CliRecallFreshness {
  readonly state: string;
  readonly reason?: string;
  readonly witnessing?: string;
  readonly checkpointSize?: number | null;
}

/** What `reseal recall --json` answered: `line` is `exit <code> <verdict or refusal code> <freshness state>`. */
export interface CliRecall {
  readonly line: string;
  readonly freshness: CliRecallFreshness | null;
}

/**
 * `reseal recall --json` of `target.recall` (`--seq`, `--residual-id`, or the latest) through the
 * real CLI in process, over the deployed stack's table and keys (`clientOf`: triage runs in
 * process), with the environment `setup.currentEnv` in `env.json` in `dir` (a fresh temporary
 * folder by default) and `store` as `--checkpoint-store` when given (a `FileCheckpointStore`;
 * docs/verifiable-log.md, "Checkpoints the client keeps").
 */
export async function cliRecall(
  setup: ReaderSetup,
  target: ReadTarget,
  { store = null, dir, timeoutSeconds = 5 }: { store?: string | null; dir?: string; timeoutSeconds?: number } = {},
): Promise<CliRecall> {
  const cwd = dir ?? mkdtempSync(join(tmpdir(), 'reseal-cli-recall-'));
  writeFileSync(join(cwd, 'env.json'), JSON.stringify(setup.currentEnv));
  const { recall } = target;
  const targetArgs =
    'seq' in recall
      ? ['--seq', String(recall.seq)]
      : 'residualId' in recall
        ? ['--residual-id', recall.residualId]
        : [];
  const run = await runCli(
    [
      'recall',
      '--lineage',
      target.lineageId,
      ...targetArgs,
      '--env',
      'env.json',
      '--json',
      '--timeout-seconds',
      String(timeoutSeconds),
      ...(store ? ['--checkpoint-store', store] : []),
    ],
    {
      cwd,
      env: { AWS_ENDPOINT_URL: setup.endpoint, AWS_REGION: setup.region },
      connect: async (_stack: string, kept: string | null) =>
        clientOf(setup, target, kept ? new FileCheckpointStore(kept) : null),
    },
  );
  const json = JSON.parse(run.stdout) as {
    verification: { verdict: string } | null;
    refusalCode: string | null;
    freshness: CliRecallFreshness | null;
  };
  return {
    line: `exit ${run.exitCode} ${json.verification?.verdict ?? json.refusalCode} ${json.freshness?.state ?? 'no freshness'}`,
    freshness: json.freshness,
  };
}
