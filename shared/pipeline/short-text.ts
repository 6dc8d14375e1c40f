import { wellFormedString } from '../schemas/well-formed-string';

/** A short human text of a pipeline message (a refusal's reason, a rejected field's detail): well-formed, at most 4,096 UTF-16 units. */
export const ShortText = wellFormedString(4096);
