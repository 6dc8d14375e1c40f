/**
 * Signs write requests for one writer key (docs/authorship.md, "Signed writes"): pure Ed25519
 * (RFC 8032, PureEdDSA) over the 32-byte signed-write digest. Adapters: `LocalWriterSigner`
 * (shared/authorship, node:crypto, a PKCS #8 key file) and `KmsWriterSigner` (adapters/, a KMS
 * `ECC_NIST_EDWARDS25519` key: `Sign` with `MessageType: RAW` and `ED25519_SHA_512`).
 */
export interface WriterSigner {
  /** The writer's key id: a label or a KMS key ARN (1–2,048 characters). */
  readonly keyId: string;
  /** Base64 of the raw 32-byte Ed25519 public key. */
  readonly publicKey: string;
  /** The 64-byte Ed25519 signature of `digest` (32 bytes). Rejects when the key cannot be used. */
  sign(digest: Uint8Array): Promise<Uint8Array>;
}
