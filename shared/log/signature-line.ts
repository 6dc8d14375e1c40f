import type { NoteSignature } from './signed-note';
import { encodeBase64 } from './strict-base64';

const EM_DASH_SPACE = '\u2014 ';

/** The note signature line (C2SP signed-note) `— <name> <base64(key ID || timestamp || signature)>\n`. */
export function formatSignatureLine(sig: NoteSignature): string {
  const blob = new Uint8Array(sig.keyHash.byteLength + sig.signature.byteLength);
  blob.set(sig.keyHash);
  blob.set(sig.signature, sig.keyHash.byteLength);
  return `${EM_DASH_SPACE}${sig.name} ${encodeBase64(blob)}\n`;
}
