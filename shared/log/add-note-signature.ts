import { NoteFormatError } from '../errors';
import type { NoteSigner } from '../ports/note-signer';
import { formatSignedNote, parseSignedNote, signNote } from './signed-note';

/**
 * Adds `signer`'s signature line to a signed note, after the ones it holds (the log's signature
 * on the operator's statement). The new signature is checked under the signer's key first.
 *
 * @throws {NoteFormatError} when `note` is not a signed note
 */
export async function addNoteSignature(note: string, signer: NoteSigner): Promise<string> {
  const { text, signatures } = parseSignedNote(note);
  const own = parseSignedNote(await signNote(text, signer)).signatures;
  const [mine] = own;
  if (mine && signatures.some((s) => s.name === mine.name && Buffer.compare(s.keyHash, mine.keyHash) === 0)) {
    throw new NoteFormatError('signatures', `the note is already signed by ${signer.keyName}`);
  }
  return formatSignedNote(text, [...signatures, ...own]);
}
