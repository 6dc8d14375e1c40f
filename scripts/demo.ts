/**
 * `npm run demo`: the whole Reseal pipeline on real environment drift (docs/demo.md).
 *
 * Starts the embedded emulator (or uses `AWS_ENDPOINT_URL`), deploys the stack with the CDK CLI,
 * replays a runner-image snapshot series through it (`runDemo`), prints the summary, and always
 * stops what it started: on success, on failure, on Ctrl-C and on SIGTERM.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { clientOutputsFrom } from '../client/stack-outputs';
import { escapedText } from '../shared/schemas/escaped-text';
import { awsBackend, awsReportReader } from './demo/aws-backend';
import { demoReportPage } from './demo/demo-report';
import { formatSummary } from './demo/format';
import { runDemo } from './demo/run-demo';
import { loadSnapshots, SnapshotFileError, sliceSnapshots } from './demo/snapshots';
import { clientConfig, deployStack } from './emulator/deploy';
import { type Emulator, ROOT, startEmulator } from './emulator/emulator';

/** The series replayed when `--snapshots` is not given. */
export const DEFAULT_SNAPSHOTS = join(ROOT, 'examples', 'runner-images', 'ubuntu-24.04.jsonl');
/** Where the run's report page goes (docs/demo.md, "The report"); `.demo-output/` is gitignored. */
export const DEFAULT_REPORT = join(ROOT, '.demo-output', 'report.html');
/** Default step through the series (see docs/demo.md, "Timing"). */
export const DEFAULT_EVERY = 1;

const int = (name: string, min: number) => (raw: string) => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
  return value;
};

interface Flags {
  snapshots: string;
  from?: number;
  to?: number;
  every: number;
  concurrency?: number;
  runId?: string;
  json?: boolean;
  report: string | false;
}

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('npm run demo --')
    .description('Replay real runner-image drift through a deployed Reseal stack on the embedded emulator')
    .option(
      '--snapshots <file>',
      'JSON Lines snapshot series (examples/runner-images/README.md format)',
      DEFAULT_SNAPSHOTS,
    )
    .option('--from <index>', 'first snapshot index to replay', int('--from', 0))
    .option('--to <index>', 'last snapshot index to replay', int('--to', 0))
    .option(
      '--every <n>',
      'replay every n-th snapshot of the range (the last is always kept)',
      int('--every', 1),
      DEFAULT_EVERY,
    )
    .option('--concurrency <n>', 'lineages replayed at the same time (default: all)', int('--concurrency', 1))
    .option('--run-id <id>', 'suffix of the lineage ids ([a-z0-9-]; default random)', (raw: string) => {
      if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(raw)) throw new InvalidArgumentError('1–40 chars of [a-z0-9-]');
      return raw;
    })
    .option('--json', 'print the summary as JSON on stdout (progress goes to stderr)')
    .option('--report <file>', 'write the report page (HTML) here', DEFAULT_REPORT)
    .option('--no-report', 'write no report page')
    .showHelpAfterError()
    // What was typed, and what the snapshot file holds, is shown escaped (docs/cli.md, "Untrusted data").
    .configureOutput({ outputError: (text, write) => write(text.split('\n').map(escapedText).join('\n')) })
    .exitOverride();
  try {
    program.parse(argv);
  } catch (error) {
    // --help exits 0; a bad flag is bad input (2), like a bad snapshot file.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  const flags = program.opts<Flags>();
  const t0 = Date.now();
  const say = (line: string) => {
    const stamped = `${`+${((Date.now() - t0) / 1000).toFixed(1)}s`.padStart(7)} ${line}`;
    if (flags.json) console.error(stamped);
    else console.log(stamped);
  };

  // Validate the input before anything is started.
  let slice: Awaited<ReturnType<typeof loadSnapshots>>;
  try {
    slice = sliceSnapshots(await loadSnapshots(flags.snapshots), {
      ...(flags.from === undefined ? {} : { from: flags.from }),
      ...(flags.to === undefined ? {} : { to: flags.to }),
      every: flags.every,
    });
  } catch (error) {
    if (error instanceof SnapshotFileError) {
      console.error(`demo: ${escapedText(flags.snapshots)} is not a valid snapshot file:`);
      for (const issue of error.issues.slice(0, 20)) console.error(escapedText(`  ${issue.path}: ${issue.message}`));
      if (error.issues.length > 20) console.error(`  … ${error.issues.length - 20} more`);
      return 2;
    }
    console.error(`demo: ${escapedText((error as Error).message)}`);
    return 2;
  }

  const started = Date.now();
  const aborter = new AbortController();
  let emulator: Emulator | undefined;
  let stopping: Promise<void> | undefined;
  const stopAll = () => {
    stopping ??= emulator ? emulator.stop() : Promise.resolve();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    say(`[demo] ${signal}: stopping everything this run started…`);
    aborter.abort(new Error(`interrupted by ${signal}`));
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    emulator = await startEmulator({ log: (line) => say(`[emulator] ${line}`) });
    aborter.signal.throwIfAborted();
    const outputs = await deployStack(emulator.endpoint, {
      embedded: emulator.embedded,
      log: (line) => say(`[deploy] ${line}`),
    });
    aborter.signal.throwIfAborted();
    say(
      `[demo] stack deployed in ${((Date.now() - started) / 1000).toFixed(1)} s; replaying ${slice.length} snapshots of ${slice[0]?.series}`,
    );
    const backend = awsBackend({
      outputs: clientOutputsFrom({ ...outputs }),
      clientConfig: clientConfig(emulator.endpoint),
    });
    const summary = await runDemo({
      backend,
      slice,
      ...(flags.runId ? { runId: flags.runId } : {}),
      ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
      log: (line) => say(`[demo] ${line}`),
      signal: aborter.signal,
    });
    if (flags.report !== false) {
      // Read back and verified by a client of its own after the run, so the edited record shows.
      const reader = awsReportReader({
        outputs: clientOutputsFrom({ ...outputs }),
        clientConfig: clientConfig(emulator.endpoint),
      });
      const page = await demoReportPage(summary, reader, Date.now());
      const { reportHtml } = await import('../cli/report/report-html');
      const path = resolve(flags.report);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, reportHtml(page));
      say(`[demo] report: ${relative(process.cwd(), path) || path} (open it in a browser; docs/demo.md, "The report")`);
    }
    if (flags.json) console.log(JSON.stringify({ ...summary, totalMs: Date.now() - started }, null, 2));
    else {
      console.log('');
      console.log(formatSummary(summary));
      console.log(`Total with emulator start and deploy: ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    }
    return summary.problems.length === 0 ? 0 : 1;
  } catch (error) {
    if (aborter.signal.aborted) return 130;
    console.error(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  } finally {
    await stopAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main(process.argv).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
