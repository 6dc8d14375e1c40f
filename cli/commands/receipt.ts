import {
  defaultPolicyText,
  type FreshnessPolicy,
  freshnessPolicy,
  type PolicyWitnessing,
} from '../../client/freshness-policy';
import {
  RECEIPT_VERIFICATION_FORMAT,
  type ReceiptVerificationShape,
} from '../../client/shapes/receipt-verification-shape';
import { writtenByOutput } from '../../client/shapes/written-by-output';
import { writtenByProven, writtenByText } from '../../client/written-by';
import { ResealError } from '../../shared/errors';
import { type ChainReceiptVerification, verifyChainReceipt } from '../../shared/integrator/chain-receipt';
import { isoTime } from '../../shared/iso-time';
import { type NoteVerifierKey, parseVerifierKey } from '../../shared/log/note-key';
import { verifyReceipt } from '../../shared/log/receipt';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';
import { fieldLines } from '../format/field-lines';
import { jsonText } from '../format/json-text';
import { readPolicyOption } from '../policy-option';
import { readJsonFile } from '../read-file';

/** Options of `verify --receipt`. */
interface ReceiptOptions {
  readonly logKey?: string;
  readonly policy?: string;
  /** `--max-age-seconds` (or its former name), resolved by the caller. */
  readonly maxAgeSeconds?: number;
  readonly json?: boolean;
}

/**
 * Checks a receipt file offline (docs/verifiable-log.md, "Receipts"): no AWS, no endpoint.
 * Format 2 (the deployment chain) with a C2SP tlog-policy (`--policy FILE`, else the log key alone:
 * `quorum none`), its maximum age checked against the cosignature time only with `--max-age-seconds`;
 * format 1 with the log's verifier key (`--log-key`, `RESEAL_LOG_KEY`, or the policy's one log).
 * Exit 0 when the record is proven, 20 otherwise, 2 for a missing or malformed key, policy or file.
 */
export async function verifyReceiptFile(ctx: CommandContext, path: string, options: ReceiptOptions): Promise<void> {
  const policy = await readPolicyOption(ctx.io, options.policy, options.maxAgeSeconds);
  const keyText = options.logKey ?? ctx.io.env.RESEAL_LOG_KEY;
  const key = keyText === undefined ? null : logKeyOf(keyText);
  const receipt = await readJsonFile(ctx.io, path, 'receipt');
  const format = (receipt as { formatVersion?: unknown } | null)?.formatVersion;
  if (format === 2) {
    if (!policy && !key) {
      throw new BadInputError(
        'verify --receipt: a format-2 receipt is checked with --policy <FILE> (reseal policy prints it), or --log-key <KEY> alone (unwitnessed)',
      );
    }
    const checked = policy ?? freshnessPolicy(defaultPolicyText(key as NoteVerifierKey));
    const nowSeconds = Math.floor(ctx.io.nowMs() / 1000);
    const result = verifyChainReceipt(receipt, {
      policy: checked.policy,
      nowSeconds,
      maxAgeSeconds: options.maxAgeSeconds ?? null,
    });
    reportReceipt(ctx, path, options, {
      format: 2,
      verdict: result.verdict,
      reason: result.reason,
      record: result.record,
      checkpoint: result.deployment && {
        origin: result.deployment.checkpoint.origin,
        size: result.deployment.checkpoint.size,
        text: `deployment checkpoint ${result.deployment.checkpoint.origin}, ${result.deployment.checkpoint.size} leaves, meets the policy (${checked.witnessing})`,
      },
      freshness: receiptFreshness(checked, result, nowSeconds, options.maxAgeSeconds ?? null),
    });
    return;
  }
  const v1Key = key ?? (policy?.policy.logs.length === 1 ? (policy.policy.logs[0]?.key ?? null) : null);
  if (!v1Key)
    throw new BadInputError('verify --receipt: give the log key with --log-key <KEY> (reseal log-key prints it)');
  const result = verifyReceipt(receipt, v1Key);
  const checkpoint = result.checkpoint && {
    origin: result.checkpoint.origin,
    size: result.checkpoint.size,
    text: `${result.checkpoint.origin}, ${result.checkpoint.size} records, signed by ${v1Key.name}`,
  };
  const unproven = policy?.witnessing === 'WITNESSED' && result.verdict === VerificationVerdict.VERIFIED_INTACT;
  reportReceipt(ctx, path, options, {
    format: 1,
    // Under a policy with a quorum, fail closed: a format-1 receipt carries no deployment chain.
    verdict: unproven ? VerificationVerdict.UNVERIFIED_TAMPER_RISK : result.verdict,
    reason: unproven ? FORMAT_1_UNDER_QUORUM : result.reason,
    record: unproven ? null : result.record,
    checkpoint,
    freshness: policy ? formatOneFreshness(policy, options.maxAgeSeconds ?? null) : null,
  });
}

/** Why a format-1 receipt fails a policy with a quorum (docs/cli.md, `verify --receipt`). */
const FORMAT_1_UNDER_QUORUM =
  'POLICY_NOT_MET: a format-1 receipt carries no deployment chain, so it cannot show freshness under a policy with a quorum of cosignatures: export format 2 (reseal export --receipt --receipt-format 2)';

/**
 * A format-1 receipt's freshness under `--policy`: never checked (it carries no deployment
 * chain), refused (`POLICY_NOT_MET`) when the policy asks for cosignatures.
 */
function formatOneFreshness(policy: FreshnessPolicy, maxAgeSeconds: number | null): ReceiptFreshness {
  return {
    checked: false,
    witnessing: policy.witnessing,
    quorumTime: null,
    ageSeconds: null,
    maxAgeSeconds,
    refusal: policy.witnessing === 'WITNESSED' ? 'POLICY_NOT_MET' : null,
  };
}

function logKeyOf(text: string): NoteVerifierKey {
  try {
    return parseVerifierKey(text);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    throw new BadInputError(`--log-key: ${error.message}`);
  }
}

/** What `verify --receipt` says of a format-2 receipt's freshness (docs/cli.md, `verify --receipt`). */
interface ReceiptFreshness {
  /** Whether `--max-age-seconds` was checked against the cosignature time. */
  readonly checked: boolean;
  readonly witnessing: PolicyWitnessing;
  /** When the quorum of cosignatures held, POSIX seconds (`null`: unwitnessed, or refused). */
  readonly quorumTime: number | null;
  /** `now − quorumTime`, seconds, or `null`. */
  readonly ageSeconds: number | null;
  readonly maxAgeSeconds: number | null;
  /** Why the chain was refused (`COSIGNATURES_TOO_OLD`, …), or `null`. */
  readonly refusal: string | null;
}

function receiptFreshness(
  policy: FreshnessPolicy,
  result: ChainReceiptVerification,
  nowSeconds: number,
  maxAgeSeconds: number | null,
): ReceiptFreshness {
  const quorumTime = result.deployment?.quorumTime ?? null;
  return {
    checked: result.freshnessChecked,
    witnessing: policy.witnessing,
    quorumTime,
    ageSeconds: quorumTime === null ? null : nowSeconds - quorumTime,
    maxAgeSeconds,
    refusal: result.refusal,
  };
}

function freshnessText(freshness: ReceiptFreshness, format: 1 | 2): string {
  if (freshness.refusal) return `REFUSED (${freshness.refusal})`;
  if (format === 1) {
    return 'not checked: a format-1 receipt carries no deployment chain (inclusion in the lineage checkpoint only); export format 2 for freshness';
  }
  if (freshness.witnessing === 'UNWITNESSED') {
    return 'not checked: UNWITNESSED policy (the log alone): inclusion proven, no freshness';
  }
  const at = `cosigned at ${isoTime((freshness.quorumTime ?? 0) * 1000)}, ${freshness.ageSeconds} s ago`;
  return freshness.checked
    ? `checked: ${at}, within --max-age-seconds ${freshness.maxAgeSeconds} s`
    : `not checked (no --max-age-seconds): ${at}; proves inclusion as of then, not that it is the newest`;
}

function reportReceipt(
  ctx: CommandContext,
  path: string,
  options: ReceiptOptions,
  result: {
    readonly format: 1 | 2;
    readonly verdict: VerificationVerdict;
    readonly reason: string;
    readonly record: SealedRecord | null;
    readonly checkpoint: { readonly origin: string; readonly size: number; readonly text: string } | null;
    readonly freshness: ReceiptFreshness | null;
  },
): void {
  const header = result.record?.header;
  // Who wrote it, only from a proven record (docs/authorship.md, "Who wrote it").
  const writtenBy = result.record ? writtenByProven(result.record) : null;
  const { freshness } = result;
  if (options.json) {
    const shape: ReceiptVerificationShape = {
      format: RECEIPT_VERIFICATION_FORMAT,
      verdict: result.verdict,
      reason: result.reason,
      receiptFormat: result.format,
      lineageId: header?.lineageId ?? null,
      seq: header?.monotonicSequenceNumber ?? null,
      residualId: header?.residualId ?? null,
      recordHash: result.record?.recordHash ?? null,
      writtenBy: writtenByOutput(writtenBy),
      checkpoint: result.checkpoint && { origin: result.checkpoint.origin, size: result.checkpoint.size },
      freshness: freshness && {
        checked: freshness.checked,
        witnessing: freshness.witnessing,
        quorumTime: freshness.quorumTime === null ? null : isoTime(freshness.quorumTime * 1000),
        ageSeconds: freshness.ageSeconds,
        maxAgeSeconds: freshness.maxAgeSeconds,
        refusal: freshness.refusal,
      },
    };
    ctx.io.stdout(jsonText(shape));
  } else {
    ctx.io.stdout(
      fieldLines([
        ['receipt', `${path} (format ${result.format})`],
        ['verdict', result.verdict],
        ['reason', result.reason],
        ...(header
          ? ([
              [
                'record',
                `lineage ${header.lineageId} seq ${header.monotonicSequenceNumber} residual ${header.residualId}`,
              ],
              ['record hash', result.record?.recordHash ?? ''],
              ['written by', writtenByText(writtenBy)],
            ] as [string, string][])
          : []),
        ...(result.checkpoint ? ([['checkpoint', result.checkpoint.text]] as [string, string][]) : []),
        ...(freshness ? ([['freshness', freshnessText(freshness, result.format)]] as [string, string][]) : []),
      ]),
    );
  }
  ctx.exit(result.verdict === VerificationVerdict.VERIFIED_INTACT ? ExitCode.OK : ExitCode.TAMPER);
}
