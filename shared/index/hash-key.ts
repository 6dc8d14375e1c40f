/**
 * A hash as a map key: 32 bytes as 32 latin1 characters, so the index's nodes can be held in a
 * `Map` under their hash (docs/verifiable-index.md, "Tiles").
 */
export const hashKey = (hash: Uint8Array): string =>
  Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('latin1');
