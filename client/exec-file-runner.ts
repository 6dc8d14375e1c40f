import { execFile } from 'node:child_process';
import type { SnapshotCommand } from './reseal-config';

/** Most bytes read from a command's standard output or error. */
const MAX_COMMAND_OUTPUT_BYTES = 1_048_576;

/** What a command run returned, or why it failed (`execFile` semantics). */
export type CommandRun =
  | { readonly ok: true; readonly stdout: string; readonly stderr: string }
  | { readonly ok: false; readonly reason: string };

/** Runs one command without a shell; injectable for tests. */
export type CommandRunner = (
  command: SnapshotCommand,
  options: { cwd: string; timeoutMs: number },
) => Promise<CommandRun>;

/** The default {@link CommandRunner}: `execFile` (no shell), killed after `timeoutMs`. */
export const execFileRunner: CommandRunner = (command, options) =>
  new Promise((resolve) => {
    execFile(
      command.command,
      [...command.args],
      {
        cwd: options.cwd,
        timeout: options.timeoutMs,
        maxBuffer: MAX_COMMAND_OUTPUT_BYTES,
        windowsHide: true,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ ok: true, stdout, stderr });
          return;
        }
        const failed = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: unknown };
        const reason = failed.killed
          ? `timed out after ${options.timeoutMs} ms`
          : typeof failed.code === 'number'
            ? `exit code ${failed.code}`
            : failed.message;
        resolve({ ok: false, reason });
      },
    );
  });
