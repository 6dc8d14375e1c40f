/**
 * Signs signed-note texts (C2SP signed-note, Ed25519). Adapters: `LocalEd25519Signer`
 * (shared/log) for tests, the demo and benchmarks, and a KMS `ECC_NIST_EDWARDS25519` signer
 * (adapters/), whose private key never leaves KMS.
 */
export interface NoteSigner {
  /** Key name written into each signature line: non-empty, no white space, no `+` (e.g. `reseal/<stackName>`). */
  readonly keyName: string;
  /** The raw 32-byte Ed25519 public key (RFC 8032 §5.1.5), from which the note key hash is derived. */
  publicKey(): Promise<Uint8Array>;
  /**
   * The 64-byte pure Ed25519 signature (RFC 8032 §5.1.6, not Ed25519ph) of `message`, the UTF-8
   * note text. Rejects when the key cannot be used.
   */
  sign(message: Uint8Array): Promise<Uint8Array>;
}
