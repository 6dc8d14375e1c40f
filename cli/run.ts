import { Command, CommanderError } from 'commander';
import { CheckpointFileError } from '../client/errors';
import { InvalidInputError, LineageNotFoundError, TenantMismatchError } from '../shared/errors';
import type { CommandContext } from './context';
import { CliError } from './errors';
import { EXIT_CODE_HELP, ExitCode } from './exit-codes';
import { terminalLines } from './format/terminal-lines';
import type { CliIo } from './io';
import { issueLines } from './issue-lines';
import { pinNote } from './pin-note';

const HELP_WIDTH = 100;

/** How a command adds itself to the program (each `register*` of cli/commands/). */
type Register = (program: Command, ctx: CommandContext) => void;

/**
 * Every command, in `--help` order, by the module that registers it. A run imports only the
 * module of the command it runs (all of them for the program's own help), so `--version`, an
 * offline command and any command's `--help` load neither the AWS SDK nor the MCP SDK.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  manifest: async () => (await import('./commands/manifest')).registerManifest,
  'write-request': async () => (await import('./commands/write-request')).registerWriteRequest,
  triage: async () => (await import('./commands/triage')).registerTriage,
  guard: async () => (await import('./commands/guard')).registerGuard,
  verify: async () => (await import('./commands/verify')).registerVerify,
  publish: async () => (await import('./commands/publish')).registerPublish,
  recall: async () => (await import('./commands/recall')).registerRecall,
  export: async () => (await import('./commands/export')).registerExport,
  inspect: async () => (await import('./commands/inspect')).registerInspect,
  report: async () => (await import('./commands/report')).registerReport,
  'log-key': async () => (await import('./commands/log-key')).registerLogKey,
  pin: async () => (await import('./commands/pin')).registerPin,
  policy: async () => (await import('./commands/policy')).registerPolicy,
  mcp: async () => (await import('./commands/mcp')).registerMcp,
  'writer-key': async () => (await import('./commands/writer-key')).registerWriterKey,
  'lineage-id': async () => (await import('./commands/lineage-id')).registerLineageId,
  deploy: async () => (await import('./commands/deploy')).registerDeploy,
  destroy: async () => (await import('./commands/destroy')).registerDestroy,
};

/** The commands a run needs: the one named first (or after `help`), none for `--version`, else all. */
function commandsFor(argv: readonly string[]): string[] {
  const first = argv[0] === 'help' ? argv[1] : argv[0];
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) return [first];
  if (argv.length === 1 && (argv[0] === '-V' || argv[0] === '--version')) return [];
  return Object.keys(COMMANDS);
}

/**
 * Builds the `reseal` program with the commands `argv` needs. Commands register themselves; each
 * action records its exit code through the context instead of calling `process.exit`, so the CLI
 * runs in-process in tests.
 */
async function buildProgram(ctx: CommandContext, argv: readonly string[]): Promise<Command> {
  const output = {
    writeOut: ctx.io.stdout,
    writeErr: ctx.io.stderr,
    // Commander's own errors quote what was typed (an unknown command or option, an option's
    // argument): escaped like every other message, so a pasted ANSI sequence is shown, not run.
    outputError: (text: string, write: (text: string) => void) => write(terminalLines(text)),
    // A fixed width keeps help identical in every terminal (and in golden files).
    getOutHelpWidth: () => HELP_WIDTH,
    getErrHelpWidth: () => HELP_WIDTH,
  };
  const program = new Command('reseal')
    .description(
      'Reseal: tamper-evident, drift-aware memory for AI agents. Offline commands (manifest, write-request, triage, guard, ' +
        'verify --export, verify --receipt, inspect --export, report --export, writer-key, lineage-id --writer-key, deploy --dry-run) ' +
        'need no AWS. Online commands (publish, recall, export, export --receipt, log-key, pin, policy, verify --lineage, inspect --lineage, ' +
        'report --lineage, lineage-id --writer-kms-key, mcp, deploy, destroy) use ' +
        'the deployed stack: the endpoint from AWS_ENDPOINT_URL, or real AWS; `reseal pin` pins its outputs and keys in a file they reuse ' +
        '($RESEAL_STACK_FILE, default .reseal/stack.json), and they keep the manifests they proved in .reseal/manifests/ ' +
        '($RESEAL_MANIFEST_CACHE; "none" keeps none). Add .reseal/ to your .gitignore. RESEAL_DEBUG=1 prints the stack of an unexpected error.',
    )
    .version('0.1.0', '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', `\n${EXIT_CODE_HELP}\n\nSee docs/cli.md for examples.`)
    .exitOverride()
    .configureOutput(output);
  const registers = await Promise.all(commandsFor(argv).map((name) => (COMMANDS[name] as () => Promise<Register>)()));
  for (const register of registers) register(program, ctx);
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
  try {
    const program = await buildProgram(ctx, argv);
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
  if (error instanceof TenantMismatchError) {
    // A lineage outside $RESEAL_TENANT: bad input (exit 2), refused before anything was read or sent (docs/cli.md, "Tenants").
    io.stderr(`error: ${terminalLines(error.message)}\n`);
    return ExitCode.BAD_INPUT;
  }
  if (error instanceof CheckpointFileError) {
    // An unreadable --checkpoint-store file is bad input (exit 2), never reset to get going again.
    io.stderr(
      `error: ${terminalLines(error.message)}: repair or restore it, never delete it (it is what catches a rolled-back lineage)\n`,
    );
    return ExitCode.BAD_INPUT;
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
