/** A SHA-256 digest as 64 lowercase hexadecimal characters. */
export type HexDigest = string;

/** Pattern of a {@link HexDigest}. */
export const HEX_DIGEST_PATTERN = /^[0-9a-f]{64}$/;
