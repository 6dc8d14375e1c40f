import type { FreshnessPolicy } from '../client/freshness-policy';
import type { ResealClient } from '../client/reseal-client';
import type { WriterSigner } from '../shared/ports/writer-signer';

/**
 * What a CLI run may touch, injected so tests run the CLI in-process: output streams, the
 * environment (for `AWS_ENDPOINT_URL` and credentials), the clock and the working directory.
 */
export interface CliIo {
  /** Writes to standard output (text is written as given; add the newline yourself). */
  readonly stdout: (text: string) => void;
  /** Writes to standard error. */
  readonly stderr: (text: string) => void;
  /** Environment variables the run sees. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Current time in milliseconds since the Unix epoch. */
  readonly nowMs: () => number;
  /** Directory relative file paths are resolved against. */
  readonly cwd: string;
  /** True when stderr is an interactive terminal (progress bars are drawn only then). */
  readonly stderrIsTty: boolean;
  /**
   * Makes the online commands' client for a stack. Absent (the real CLI): SDK clients from the
   * environment, resources from the stack's outputs (`connect` in cli/connect.ts). Tests inject a
   * client over an in-memory store.
   */
  readonly connect?: (
    stackName: string,
    checkpointStorePath: string | null,
    writer?: WriterSigner,
    policy?: FreshnessPolicy,
  ) => Promise<ResealClient>;
}

/** The real process's streams, environment and clock. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    nowMs: () => Date.now(),
    cwd: process.cwd(),
    stderrIsTty: Boolean(process.stderr.isTTY),
  };
}
