/** `⌊n / 2⌋`, one level up the RFC 9162 §2.1 tree (with `/`, not `>>`: sizes pass 2^31; shared/log/is-count.ts). */
export const half = (n: number): number => Math.floor(n / 2);
