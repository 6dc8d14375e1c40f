import { FreshnessState } from '../shared/integrator/record-freshness';
import { checkpointOrigin } from '../shared/log/checkpoint-origin';
import type { VerifiedCheckpoint } from '../shared/log/verified-checkpoint';
import type { WalkAgainstLog } from '../shared/log/walk-against-log';
import type { LineageStore } from '../shared/ports/lineage-store';
import type { ChainVerification } from '../shared/seal/chain-verification';
import { SealedRecordSchema } from '../shared/seal/sealed-record';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { DeploymentChainReader } from './deployment-chain-reader';
import { LogVerificationError } from './errors';
import type { LogReader } from './log-reader';
import { freshnessOf, provenRecordFreshness } from './proven-record-freshness';
import type { Freshness } from './verified-recall';

/** A walked lineage with where its verified head stands against the deployment log. */
export type FreshVerification = ChainVerification & {
  /**
   * The head's freshness (docs/deployment-log.md, "Clients"), as a recall shows it; `null` when
   * this client reads no deployment log, or the walk is not intact (nothing to place).
   */
  readonly freshness: Freshness | null;
};

/** Dependencies of {@link walkFreshness}. */
export interface WalkFreshnessDeps {
  readonly store: Pick<LineageStore, 'readRecord'>;
  readonly log: Pick<LogReader, 'consistency' | 'latest' | 'key'>;
  readonly freshness: DeploymentChainReader | null;
}

/**
 * Places an intact walk's verified head against the deployment chain, as a recall of the
 * lineage's latest record is placed (`provenRecordFreshness`, docs/deployment-log.md, "Clients"):
 * a head older than the lineage head the index holds is `NOT_NEWEST` (a rolled-back lineage:
 * `UNVERIFIED_TAMPER_RISK`), two histories are `INCONSISTENT` (`LINEAGE_BROKEN`), a chain that does
 * not verify is `REFUSED` (fail closed); a head past the index is `SEALED_AWAITING_INTEGRATION`,
 * intact. A refuted head turns the walk's verdict and first failure.
 *
 * The head is proven in the tree head the walk was tied to when `tied` says so: the index's own
 * (a walk tied to the index, `tied.indexed`), or the signed checkpoint ending at it. Otherwise it
 * is proven in the lineage's latest signed checkpoint when that checkpoint ends at it; else only
 * its size is known, and a head the index covers cannot be shown consistent with it. A walk tied
 * to the index that is not `PROVEN` there (records awaiting integration, `NOT_NEWEST`, refused)
 * shows that state, its verdict already set by the walk.
 *
 * @throws what the table reads throw (an outage), never for a forged or hidden item
 */
export async function walkFreshness(
  deps: WalkFreshnessDeps,
  lineageId: string,
  verification: ChainVerification,
  tied: Pick<WalkAgainstLog, 'log' | 'indexed'> | null = null,
): Promise<FreshVerification> {
  const reader = deps.freshness;
  const indexed = tied?.indexed ?? null;
  if (reader && indexed && indexed.state !== FreshnessState.PROVEN) {
    const policy = await reader.policy();
    return {
      ...verification,
      freshness: {
        state: indexed.state,
        checkpointSize: indexed.deploymentCheckpointSize,
        reason: indexed.reason,
        witnessing: policy.witnessing,
        windowSeconds: policy.windowSeconds,
        reAnchor: null,
      },
    };
  }
  const head = verification.head;
  if (!reader || !head || verification.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    return { ...verification, freshness: null };
  }
  // Read again for its seq and hash only (the walk verified the record with that hash at that seq).
  const read = SealedRecordSchema.safeParse(await deps.store.readRecord(lineageId, head.seq));
  const record = read.success ? read.data : null;
  if (!record || record.recordHash !== head.recordHash || record.header.monotonicSequenceNumber !== head.seq) {
    // The walk just read it: a record gone or changed since is a table writer at work.
    const reason = `freshness: record ${head.seq} changed while the lineage was read`;
    const verdict = VerificationVerdict.LINEAGE_BROKEN;
    return { ...verification, verdict, firstFailure: { seq: head.seq, verdict, reason }, freshness: null };
  }
  const policy = await reader.policy();
  // Read once: the head record's residual id is checked under the same deployment checkpoint.
  const { chain, withResidual } = await reader.open({ lineageId });
  const answered =
    tied?.log && tied.log.size === head.seq + 1
      ? await treeHeadAt(deps, lineageId, tied.log)
      : await signedAt(deps, lineageId, head.seq + 1);
  const decided = await provenRecordFreshness(
    deps.log,
    lineageId,
    chain,
    answered,
    record,
    { latest: true, residualAsked: false },
    withResidual,
  );
  const freshness = freshnessOf(decided, policy);
  if (!decided.finding) return { ...verification, freshness };
  const { verdict, reason } = decided.finding;
  return {
    ...verification,
    verdict,
    firstFailure: { seq: head.seq, verdict, reason: `freshness: ${reason}` },
    freshness,
  };
}

/** The tree head a walk was tied to, as the checkpoint its head record is proven in (its root checked by the walk). */
async function treeHeadAt(
  deps: WalkFreshnessDeps,
  lineageId: string,
  head: { readonly size: number; readonly rootHash: Uint8Array },
): Promise<VerifiedCheckpoint> {
  const key = await deps.log.key();
  return { origin: checkpointOrigin(key.name, lineageId), size: head.size, rootHash: head.rootHash, note: '' };
}

/** The latest signed checkpoint when it has `size` leaves; else one of that size whose root is unknown (never consistent). */
async function signedAt(deps: WalkFreshnessDeps, lineageId: string, size: number) {
  const latest = await deps.log.latest(lineageId).catch((error: unknown) => {
    // A log that does not prove is the walk's finding (checkWalkAgainstLog), not an outage.
    if (error instanceof LogVerificationError) return null;
    throw error;
  });
  if (latest && latest.checkpoint.size === size) return latest.checkpoint;
  const key = await deps.log.key();
  return { origin: checkpointOrigin(key.name, lineageId), size, rootHash: new Uint8Array(0), note: '' };
}
