import { LogVerificationError } from '../client/errors';
import type { LatestCheckpoint } from '../client/log-reader';
import { formatVerifierKey } from '../shared/log/note-key';
import { escapedText } from '../shared/schemas/escaped-text';
import type { TrustedHead } from '../shared/seal/chain-verification';
import type { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { McpClient } from './context';
import { tailCheckpoint } from './tail-checkpoint';

/** Why the signed log does not verify: the client's verdict and its reason (e.g. a rollback, a fork). */
export interface LogFailure {
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

/**
 * What the server learnt of a lineage's signed log before a walk (`reseal_verify`,
 * `reseal_inspect`): the latest signed checkpoint (verified, consistent with the kept one:
 * docs/verifiable-log.md, "Checkpoints the client keeps"), the head of its last record (proven
 * by inclusion), or why the log does not verify.
 */
export interface LogCheck {
  readonly latest: LatestCheckpoint | null;
  /** The last record of `latest`, proven by inclusion; `null` when not needed or not proven. */
  readonly signedHead: TrustedHead | null;
  /** Why the signed log does not verify (rollback, fork, forged note, unprovable record), or `null`. */
  readonly failure: LogFailure | null;
  /** The log's verifier key, C2SP vkey. */
  readonly logKey: string;
}

/** The head of a record the client proved by inclusion in the lineage's head tree. */
async function provenHead(client: McpClient, lineageId: string, seq: number): Promise<TrustedHead> {
  const { record } = await client.provenRecord(lineageId, seq);
  return { seq: record.header.monotonicSequenceNumber, recordHash: record.recordHash };
}

/** A signed log that does not verify, as data (its reason escaped: it may quote a stored field); anything else the client threw is thrown again. */
function logFailure(error: unknown): LogFailure {
  if (!(error instanceof LogVerificationError)) throw error;
  return { verdict: error.verdict, reason: escapedText(error.reason) };
}

/**
 * What the signed log of a lineage says, read by the client with the log's public key: the
 * latest signed checkpoint, verified and shown consistent with the kept one (which it then
 * replaces: `client.latestCheckpoint`), and, with `signedHead`, the head of its last record
 * proven by inclusion, for a walk to check the stored tail against. A log that does not verify
 * is a `failure`, not an exception, so a walk can still name the record at fault.
 *
 * @throws what the client throws for anything but a verification failure (AWS errors)
 */
async function checkLog(
  client: McpClient,
  lineageId: string,
  options: { readonly signedHead: boolean },
): Promise<LogCheck> {
  const logKey = formatVerifierKey(await client.logKey());
  let latest: LogCheck['latest'];
  try {
    latest = await client.latestCheckpoint(lineageId);
  } catch (error) {
    return { latest: null, signedHead: null, failure: logFailure(error), logKey };
  }
  if (!latest || !options.signedHead || latest.checkpoint.size === 0) {
    return { latest, signedHead: null, failure: null, logKey };
  }
  try {
    const signedHead = await provenHead(client, lineageId, latest.checkpoint.size - 1);
    return { latest, signedHead, failure: null, logKey };
  } catch (error) {
    return { latest, signedHead: null, failure: logFailure(error), logKey };
  }
}

/**
 * The step `reseal_verify` and `reseal_inspect` take before walking a lineage: its signed log
 * checked ({@link checkLog}; the last record proven only when the caller gives no `checkpoint`),
 * and the walk's options: the stored tail checked against the caller's `checkpoint`, else that
 * proven last record, else nothing (`{}`).
 *
 * @throws what the client throws for anything but a verification failure (AWS errors)
 */
export async function checkLogForWalk(
  client: McpClient,
  lineageId: string,
  caller: TrustedHead | undefined,
): Promise<{ readonly log: LogCheck; readonly walk: { readonly checkpoint?: TrustedHead } }> {
  const log = await checkLog(client, lineageId, { signedHead: caller === undefined });
  const tail = tailCheckpoint(caller, log);
  return { log, walk: tail ? { checkpoint: tail.head } : {} };
}
