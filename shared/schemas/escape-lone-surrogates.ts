/**
 * `text` with every lone UTF-16 surrogate written as the six characters `\uXXXX`: well-formed, so
 * it survives UTF-8 storage (DynamoDB) and a digest over it stays the same after a round trip,
 * while a hostile key stays recognisable in a refusal.
 */
export function escapeLoneSurrogates(text: string): string {
  return text.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
