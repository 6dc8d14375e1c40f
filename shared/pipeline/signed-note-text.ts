import { wellFormedString } from '../schemas/well-formed-string';

/**
 * A C2SP signed note as text (a signed checkpoint or outcome statement): well-formed, at most
 * 16 KiB. Only its signature makes it worth anything: parse it with `openCheckpoint`.
 */
export const SignedNoteText = wellFormedString(16_384).min(1);
