import { hasExactKeys } from '../schemas/has-exact-keys';
import { isNonNegativeInt } from '../schemas/is-non-negative-int';
import { isPlainObject } from '../schemas/is-plain-record';
import { NO_CONTROL_CHARACTERS } from '../schemas/no-control-characters';
import { WireFields } from '../schemas/wire-fields';
import {
  MAX_VARIABLE_NAME_LENGTH,
  MAX_VARIABLE_VALUE_BYTES,
  type SessionVariable,
  SessionVariableSchema,
  VariableFreshness,
} from '../write/session-variable';
import { MAX_VARIABLES } from '../write/write-request';

const FRESHNESS = new Set<unknown>(Object.values(VariableFreshness));
const VARIABLE_FIELDS = WireFields.sessionVariable.required;

/**
 * Whether {@link SessionVariableSchema} accepts `value`: by hand for a variable without a
 * receipt (docs/canonical-form.md, "Validate once at each trust boundary", explains why), by the schema otherwise.
 */
function isSessionVariable(value: unknown): value is SessionVariable {
  if (!isPlainObject(value) || !hasExactKeys(value, VARIABLE_FIELDS))
    return SessionVariableSchema.safeParse(value).success;
  const { name, value: text, freshness, sourceEpoch } = value;
  return (
    typeof name === 'string' &&
    name.length <= MAX_VARIABLE_NAME_LENGTH &&
    NO_CONTROL_CHARACTERS.test(name) &&
    name.isWellFormed() &&
    typeof text === 'string' &&
    text.length <= MAX_VARIABLE_VALUE_BYTES &&
    text.isWellFormed() &&
    (text.length * 3 <= MAX_VARIABLE_VALUE_BYTES || Buffer.byteLength(text, 'utf8') <= MAX_VARIABLE_VALUE_BYTES) &&
    FRESHNESS.has(freshness) &&
    isNonNegativeInt(sourceEpoch)
  );
}

/** Whether `z.array(SessionVariableSchema).max(MAX_VARIABLES)` accepts `list`. */
export function isVariableList(list: unknown): list is SessionVariable[] {
  if (!Array.isArray(list) || list.length > MAX_VARIABLES) return false;
  for (let i = 0; i < list.length; i++) if (!isSessionVariable(list[i])) return false;
  return true;
}
