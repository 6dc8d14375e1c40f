import type { ServiceLogger } from './service-logger';

/**
 * Runs `work`; an infrastructure failure it rejects with (KMS, a table, queue or bus error) is
 * logged at error, with the error's name, message and cause, then rethrown for a retry
 * (docs/pipeline.md, "Logs and metrics"): a message or event waiting for its retry, or in a
 * dead-letter queue, has a line naming why. The services settle every other outcome themselves.
 *
 * @param message - the log line, saying what failed and what is retried
 * @throws what `work` throws, unchanged
 */
export async function logInfrastructureFailure<T>(
  logger: ServiceLogger,
  message: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    logger.error(message, {
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
      cause: error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined,
    });
    throw error;
  }
}
