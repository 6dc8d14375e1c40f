import { type InvalidInputError, printableErrorPath } from '../shared/errors';

/**
 * The issues of an {@link InvalidInputError}, one `  at <field>: <message>` line each (joined by
 * newlines, no trailing one), the field escaped by `printable` when it is not printable ASCII.
 */
export function issueLines(error: InvalidInputError): string {
  return error.issues.map((issue) => `  at ${printableErrorPath(issue.path || '<root>')}: ${issue.message}`).join('\n');
}
