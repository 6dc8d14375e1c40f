/**
 * The `purpose` of the notice key's encryption context: with the log name (`log`), it is what the
 * sealer's `kms:GenerateDataKey` and the sealer's and the integrator's `kms:Decrypt` are
 * conditioned on (docs/infrastructure.md, "Permissions"), so a data key of another use never
 * authenticates a notice or a head.
 */
export const NOTICE_KEY_PURPOSE = 'reseal-sealed-run-notice';

/** The encryption context of every notice data key of the log `logName`. */
export function noticeKeyContext(logName: string): Record<string, string> {
  return { purpose: NOTICE_KEY_PURPOSE, log: logName };
}

/** A notice data key: the 32-byte plaintext and its KMS-wrapped form (standard base64). */
export interface NoticeDataKey {
  readonly plaintext: Uint8Array;
  readonly blob: string;
}

/**
 * The notice key as the sealer holds it (docs/deployment-log.md, "Sealed-run notices"): a data key
 * to MAC notices and heads with (docs/verifiable-log.md, "Appending"), generated once and reused
 * for a while (one KMS request per container, not per notice). Adapter: `KmsNoticeKey` (adapters/).
 */
export interface NoticeKeyIssuer {
  /**
   * The current data key.
   * @throws when none can be had (KMS refused or unreachable): the notices then go without `auth`,
   *   and heads get a KMS head-state MAC
   */
  dataKey(): Promise<NoticeDataKey>;
}

/**
 * The notice key as the integrator and the sealer hold it (docs/deployment-log.md, "Integration",
 * step 2; docs/verifiable-log.md, "Appending"): unwraps a notice's or a head's data key so its MAC
 * can be checked. Adapter: `KmsNoticeKey` (adapters/).
 */
export interface NoticeKeyOpener {
  /**
   * The plaintext data key `blob` wraps, or `null` when KMS says it is no data key of the notice
   * key under its context (forged, another key, another context, malformed).
   * @throws when the answer cannot be had (KMS unreachable, throttled, key disabled)
   */
  open(blob: string): Promise<Uint8Array | null>;
}
