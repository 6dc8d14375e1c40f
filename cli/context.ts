import type { ExitCode } from './exit-codes';
import type { CliIo } from './io';

/** What every command's action receives: the injected I/O and where to put its exit code. */
export interface CommandContext {
  readonly io: CliIo;
  /** Records the run's exit code (the last call wins). */
  readonly exit: (code: ExitCode) => void;
}
