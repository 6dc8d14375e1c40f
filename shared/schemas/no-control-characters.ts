/**
 * A non-empty text with no control character (U+0000–U+001F, U+007F): map keys, variable
 * names, key ids. The one definition of that rule; each schema adds its own message.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]+$/;
