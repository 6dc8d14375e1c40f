import { ResealError } from '../shared/errors';
import { ExitCode } from './exit-codes';

/**
 * An error the CLI reports as a one-line message with a chosen exit code, without a stack
 * trace: a bad file, a bad option, a missing stack output. Not retryable.
 */
export class CliError extends ResealError {
  readonly retryable = false;
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Bad input (exit code 2): the message names the file and, for schema failures, the field. */
export class BadInputError extends CliError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.BAD_INPUT, options);
    this.name = 'BadInputError';
  }
}
