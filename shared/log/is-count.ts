/**
 * Whether `n` is a tree size or index of the RFC 9162 §2.1 tree: a safe non-negative integer.
 * Sizes and indices are plain numbers up to 2^53 − 1 (`Number.MAX_SAFE_INTEGER`): the tree's
 * arithmetic (`half`, `splitPoint`, …) halves and doubles with `/` and `*` instead of 32-bit
 * bitwise operators, which would wrap above 2^31.
 */
export const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
