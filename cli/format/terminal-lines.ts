import { escapedText } from '../../shared/schemas/escaped-text';

/**
 * Multi-line text (an error message) with each line shown with `escapedText`
 * (shared/schemas/escaped-text.ts): its own line breaks kept, nothing else acted on.
 */
export function terminalLines(text: string): string {
  return text.split('\n').map(escapedText).join('\n');
}
