import { NO_CONTROL_CHARACTERS } from './no-control-characters';
import { wellFormedString } from './well-formed-string';

/**
 * A map key (environment keys, claim ids): well-formed, 1–512 UTF-16 units, no control
 * characters. Keys are compared exactly, code unit for code unit, with no Unicode normalization;
 * `safeRecord` (shared/schemas/safe-record.ts) refuses `__proto__` and keys that collide after NFC
 * (docs/canonical-form.md, "Hostile-string policy").
 */
export const MapKey = wellFormedString(512).min(1).regex(NO_CONTROL_CHARACTERS, 'key holds a control character');
