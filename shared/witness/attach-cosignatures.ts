import { NoteFormatError } from '../errors';
import { parseSignedNote } from '../log/signed-note';

/**
 * The checkpoint note with a 200 body's cosignature lines appended (C2SP tlog-witness: the
 * client "MAY concatenate it to the checkpoint"), read back strictly.
 * @throws {NoteFormatError} when the body is not one or more signature lines, or the note grows
 *   beyond the signed-note bounds
 */
export function attachCosignatures(note: string, responseBody: string): string {
  if (typeof responseBody !== 'string' || responseBody.length === 0 || !responseBody.startsWith('\u2014 ')) {
    throw new NoteFormatError('signatures', 'expected one or more signature lines');
  }
  const combined = `${note}${responseBody}`;
  // A blank line inside the body would move the text/signature split: the text must not change.
  if (parseSignedNote(combined).text !== parseSignedNote(note).text) {
    throw new NoteFormatError('signatures', 'the cosignature lines change the signed text');
  }
  return combined;
}
