/** Canonical standard base64 (RFC 4648 §4, padded) of 32 bytes: an HMAC-SHA-256 MAC, 44 characters. */
export const BASE64_MAC_PATTERN = /^[A-Za-z0-9+/]{43}=$/;
