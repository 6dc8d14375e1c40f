import { NO_CONTROL_CHARACTERS } from '../schemas/no-control-characters';
import { wellFormedString } from '../schemas/well-formed-string';

/**
 * A MAC key id: a KMS key ARN, key id or alias, or a label for a local key. 1–2,048
 * characters, well-formed, no control characters.
 */
export const KeyIdSchema = wellFormedString(2048)
  .min(1)
  .regex(NO_CONTROL_CHARACTERS, 'key id holds a control character');
