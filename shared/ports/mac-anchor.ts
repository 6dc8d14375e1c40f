/**
 * The external anchor of a sealed record (docs/sealing.md, "Record layout"): a MAC over a record header,
 * issued by a key the writer cannot read (KMS `HMAC_256` in production, node:crypto in tests).
 */

/** Algorithm names, as KMS spells them. */
export const MacAlgorithm = { HMAC_SHA_256: 'HMAC_SHA_256' } as const;
/** One of {@link MacAlgorithm}. */
export type MacAlgorithm = (typeof MacAlgorithm)[keyof typeof MacAlgorithm];

/** A MAC with what is needed to check it later. */
export interface AnchorSignature {
  /** Key that produced the MAC (KMS key ARN or id; a label for local keys). HMAC keys do not rotate, so records name it. */
  readonly keyId: string;
  /** MAC algorithm. */
  readonly algorithm: MacAlgorithm;
  /** The MAC, standard base64 (32 bytes for HMAC-SHA-256). */
  readonly mac: string;
}

/**
 * Port for the MAC anchor. Adapters: `LocalHmacAnchor` (shared/seal) and
 * `KMSMacAnchor` (adapters/).
 */
export interface MacAnchor {
  /** Key id this anchor signs with; written into every record header before signing. */
  readonly keyId: string;
  /**
   * MAC over `message` (a record's canonical header bytes, at most 4,096, or a 32-byte record-batch
   * or head-state message).
   * @throws when the key cannot be used (disabled, missing, unreachable)
   */
  generateMac(message: Uint8Array): Promise<AnchorSignature>;
  /**
   * Resolves `true` when `anchor.mac` is the MAC of `message` under `anchor.keyId`, `false` when
   * it is not. Rejects when the check cannot be made (key disabled, missing, unreachable):
   * callers must then fail closed with `UNVERIFIED_TAMPER_RISK`.
   */
  verifyMac(message: Uint8Array, anchor: AnchorSignature): Promise<boolean>;
}
