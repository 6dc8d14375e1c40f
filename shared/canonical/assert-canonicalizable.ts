import { canonicalJson, type JsonValue } from './canonical-json';

/**
 * Throws unless `value` is exactly representable as RFC 8785 JSON: the refusals of
 * {@link canonicalJson}, which it runs (one code path, so the check and the text never
 * disagree). A caller that also needs the text should call {@link canonicalJson} once instead.
 *
 * @throws {CanonicalizationError} as {@link canonicalJson}
 */
export function assertCanonicalizable(value: unknown): asserts value is JsonValue {
  canonicalJson(value);
}
