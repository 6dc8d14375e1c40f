import { LogVerificationError } from '../client/errors';
import type { LatestCheckpoint } from '../client/log-reader';
import type { FreshWalk } from '../client/reseal-client';
import type { FreshVerification } from '../client/walk-freshness';
import { parseCheckpointBody } from '../shared/log/checkpoint';
import { formatVerifierKey } from '../shared/log/note-key';
import { parseSignedNote } from '../shared/log/signed-note';
import type { VerifiedCheckpoint } from '../shared/log/verified-checkpoint';
import type { TrustedHead } from '../shared/seal/trusted-head';
import type { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { McpClient } from './reseal-mcp-deps';

/** Why the signed log does not verify: the client's verdict and its reason (e.g. a rollback, a fork). */
export interface LogFailure {
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

/**
 * The tree head a walk was tied to (docs/verifiable-log.md, "Verifying a whole lineage"): its size
 * and root, what vouches for it, and the deployment checkpoint an index-vouched head was read under.
 */
export interface WalkTreeHeadCheck {
  readonly size: number;
  readonly rootHash: Uint8Array;
  readonly vouchedBy: 'signed-checkpoint' | 'index';
  readonly deploymentCheckpointSize: number | null;
}

/**
 * What the server learnt of a lineage's log with a walk (`reseal_verify`, `reseal_inspect`): the
 * latest signed lineage checkpoint when the walk was tied to one (verified, consistent with the
 * kept one: docs/verifiable-log.md, "Checkpoints the client keeps"), the tree head it was tied to
 * (that checkpoint, or the lineage's entry in the index), the last record of that tree (proven by
 * the walk), and the first seq sealed past an index-vouched tree head (awaiting integration).
 */
export interface LogCheck {
  readonly latest: LatestCheckpoint | null;
  /** The last record of the tree head, proven by the walk; `null` when not proven. */
  readonly signedHead: TrustedHead | null;
  /** Why the log does not verify, when that was found apart from the walk (the walk's verdict carries it otherwise). */
  readonly failure: LogFailure | null;
  /** The log's verifier key, C2SP vkey. */
  readonly logKey: string;
  /** The tree head the walk was tied to, `null` (none) or absent (not read). */
  readonly treeHead?: WalkTreeHeadCheck | null;
  /** The first seq sealed past the tree head the index holds (awaiting integration), `null` or absent (none). */
  readonly awaitingFromSeq?: number | null;
}

/** The kept checkpoint, verified again; `null` when none, or when it does not verify (the walk then fails citing it). */
async function keptOf(client: McpClient, lineageId: string): Promise<VerifiedCheckpoint | null> {
  try {
    return await client.keptCheckpoint(lineageId);
  } catch (error) {
    if (error instanceof LogVerificationError) return null;
    throw error;
  }
}

/**
 * The log part of a walk's answer, from the walk tied to its log ({@link FreshWalk}): the signed
 * lineage checkpoint it was tied to (with the kept one read before the walk), the tree head, the
 * proven last record of that tree, and the first seq awaiting integration.
 */
function logOf(walked: FreshWalk, kept: VerifiedCheckpoint | null, logKey: string): LogCheck {
  const { log, indexed, verification } = walked;
  const head = verification.head;
  const latest: LatestCheckpoint | null =
    log?.note != null
      ? { checkpoint: { ...parseCheckpointBody(parseSignedNote(log.note).text), note: log.note }, trusted: kept }
      : null;
  return {
    latest,
    signedHead: log && head && head.seq + 1 === log.size ? head : null,
    failure: null,
    logKey,
    treeHead: log && {
      size: log.size,
      rootHash: log.rootHash,
      vouchedBy: log.vouchedBy,
      deploymentCheckpointSize: indexed?.deploymentCheckpointSize ?? null,
    },
    awaitingFromSeq: indexed?.awaitingFromSeq ?? null,
  };
}

/**
 * `reseal_verify`'s walk (docs/mcp.md, `reseal_verify`): every hash, link and MAC through KMS, the
 * stored head, the tail against the caller's `checkpoint`, all tied to the lineage's tree head
 * (`client.verifyStoredLineage`, MAC audit): the head item's signed lineage checkpoint (kept), or
 * the lineage's entry in the index, records past it awaiting integration; the head then placed
 * against the deployment log.
 *
 * @throws what the client throws for anything but a verification failure (AWS errors)
 */
export async function verifyWithLog(
  client: McpClient,
  lineageId: string,
  caller: TrustedHead | undefined,
): Promise<{ readonly verification: FreshVerification; readonly log: LogCheck }> {
  const logKey = formatVerifierKey(await client.logKey());
  const kept = await keptOf(client, lineageId);
  const walked = await client.verifyStoredLineage(lineageId, {
    authentication: 'macs',
    ...(caller ? { checkpoint: caller } : {}),
  });
  return { verification: walked.verification, log: logOf(walked, kept, logKey) };
}

/**
 * `reseal_inspect`'s read (docs/mcp.md, `reseal_inspect`): the whole lineage read, verified with
 * the client's anchor and tied to its tree head as {@link verifyWithLog} ties it
 * (`client.readVerifiedLineage`), with the records read.
 *
 * @throws what the client throws for anything but a verification failure (AWS errors)
 */
export async function inspectWithLog(
  client: McpClient,
  lineageId: string,
  caller: TrustedHead | undefined,
): Promise<{ readonly records: unknown[]; readonly verification: FreshVerification; readonly log: LogCheck }> {
  const logKey = formatVerifierKey(await client.logKey());
  const kept = await keptOf(client, lineageId);
  const { exported, walked } = await client.readVerifiedLineage(lineageId, caller ? { checkpoint: caller } : {});
  return { records: exported.records, verification: walked.verification, log: logOf(walked, kept, logKey) };
}
