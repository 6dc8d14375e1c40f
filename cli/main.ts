import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { InvalidInputError, LineageNotFoundError } from '../shared/errors';
import { registerExport } from './commands/export';
import { registerGuard } from './commands/guard';
import { registerInspect } from './commands/inspect';
import { registerManifest } from './commands/manifest';
import { registerMcp } from './commands/mcp';
import { registerPin } from './commands/pin';
import { registerPublish } from './commands/publish';
import { registerRecall } from './commands/recall';
import { registerLogKey } from './commands/receipt';
import { registerTriage } from './commands/triage';
import { registerVerify } from './commands/verify';
import type { CommandContext } from './context';
import { CliError } from './errors';
import { EXIT_CODE_HELP, ExitCode } from './exit-codes';
import { terminalLines } from './format/output';
import { type CliIo, processIo } from './io';
import { pinNote } from './online';
import { issueLines } from './read-input';

const HELP_WIDTH = 100;

/**
 * Builds the `reseal` program. Commands register themselves; each action records its exit code
 * through the context instead of calling `process.exit`, so the CLI runs in-process in tests.
 */
function buildProgram(ctx: CommandContext): Command {
  const output = {
    writeOut: ctx.io.stdout,
    writeErr: ctx.io.stderr,
    // A fixed width keeps help identical in every terminal (and in golden files).
    getOutHelpWidth: () => HELP_WIDTH,
    getErrHelpWidth: () => HELP_WIDTH,
  };
  const program = new Command('reseal')
    .description(
      'Reseal: tamper-evident, drift-aware memory for AI agents. Offline commands (manifest, triage, guard, ' +
        'verify --export, verify --receipt, inspect --export) need no AWS. Online commands (publish, recall, ' +
        'export, export --receipt, log-key, pin, verify --lineage, inspect --lineage, mcp) use the deployed stack: the ' +
        'endpoint from AWS_ENDPOINT_URL, or real AWS; `reseal pin` pins its outputs and keys in a file they reuse.',
    )
    .version('0.1.0', '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', `\n${EXIT_CODE_HELP}\n\nSee docs/cli.md for examples.`)
    .exitOverride()
    .configureOutput(output);
  registerManifest(program, ctx);
  registerTriage(program, ctx);
  registerGuard(program, ctx);
  registerVerify(program, ctx);
  registerPublish(program, ctx);
  registerRecall(program, ctx);
  registerExport(program, ctx);
  registerInspect(program, ctx);
  registerLogKey(program, ctx);
  registerPin(program, ctx);
  registerMcp(program, ctx);
  for (const command of program.commands) {
    command.exitOverride().configureOutput(output);
  }
  return program;
}

/**
 * Runs the `reseal` CLI on `argv` (the arguments after the program name) and resolves its exit
 * code (see {@link ExitCode}). Never throws and never calls `process.exit`: output goes to
 * `io.stdout` / `io.stderr`.
 *
 * @example
 * const code = await run(['triage', '--manifest', 'm.json', '--env', 'now.json', '--json'], processIo());
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = ExitCode.OK;
  const ctx: CommandContext = {
    io,
    exit: (code) => {
      exitCode = code;
    },
  };
  const program = buildProgram(ctx);
  try {
    if (argv.length === 0) {
      io.stderr(program.helpInformation());
      return ExitCode.BAD_INPUT;
    }
    await program.parseAsync([...argv], { from: 'user' });
    const note = exitCode === ExitCode.TAMPER ? pinNote(io) : null;
    if (note) io.stderr(`${note}\n`);
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // Help and version are displayed by commander itself and are a success.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.OK;
    if (error.code === 'commander.help') return ExitCode.OK;
    return ExitCode.BAD_INPUT; // commander already printed the message
  }
  // Messages may carry strings read from the table (a verification reason naming a stored id): escaped.
  if (error instanceof CliError) {
    io.stderr(`error: ${terminalLines(error.message)}\n`);
    return error.exitCode;
  }
  if (error instanceof LineageNotFoundError) {
    // An unknown lineage id is bad input (exit 2), never an intact empty chain.
    io.stderr(`error: ${terminalLines(error.message)}\n`);
    return ExitCode.BAD_INPUT;
  }
  if (error instanceof InvalidInputError) {
    // From the error's fields, never its message: `what` may itself contain " at ".
    io.stderr(`error: invalid ${error.what}\n${issueLines(error)}\n`);
    return ExitCode.BAD_INPUT;
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  io.stderr(`error: unexpected failure: ${terminalLines(message)}\n`);
  if (io.env.RESEAL_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return ExitCode.UNEXPECTED;
}

/** Entry point when run as a script (`bin/reseal.mjs` imports this module and calls it). */
export async function main(): Promise<void> {
  process.exitCode = await run(process.argv.slice(2), processIo());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
