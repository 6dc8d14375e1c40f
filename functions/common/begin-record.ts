import type { Logger } from '@aws-lambda-powertools/logger';

/** Keys every log line of a record carries; reset before each record so none leak to the next. */
export function beginRecord(logger: Logger, messageId: string): void {
  logger.removeKeys(['residualId', 'lineageId', 'messageId', 'requestId']);
  logger.appendKeys({ messageId });
}
