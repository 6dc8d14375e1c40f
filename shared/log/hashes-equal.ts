/**
 * Byte equality of two hashes in time independent of where the first difference is (tree hashes,
 * RFC 9162 §2.1; docs/verifiable-log.md, "Public API"). `false` when the lengths differ.
 */
export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < a.byteLength; i += 1) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
