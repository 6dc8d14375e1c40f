import { FreshnessState, type ReadDeploymentChain, type RecordFreshness } from '../shared/integrator/record-freshness';
import { VerificationVerdict as V, type VerificationVerdict } from '../shared/seal/verification-verdict';
import { LogVerificationError } from './errors';
import type { LatestCheckpoint, LogReader } from './log-reader';
import { searchLoggedSeal } from './logged-seal-search';
import { treeVoucher } from './tree-voucher';

/** A `NOT_FOUND` recall by residual id, checked against the records the index has not integrated yet. */
export interface RecallAbsence {
  /** The freshness to show: `absence` with its reason qualified, `SEALED_AWAITING_INTEGRATION` when found, or `absence` unchanged. */
  readonly freshness: RecordFreshness | null;
  /** Set when the signed log contradicts "no such record" (or does not verify): the recall's verdict. */
  readonly finding: { readonly verdict: VerificationVerdict; readonly reason: string } | null;
}

/**
 * Absence in the index is absence only as of the last integration (docs/deployment-log.md,
 * "Clients"): a triage `NOT_FOUND` for a residual id is checked against the lineage's records
 * past the size the index holds (all of them with no deployment log), proven in the newest
 * signed lineage checkpoint the client read, with the search `publish --wait` uses
 * (`searchLoggedSeal`, at most 256 records, newest first). Found: `SEALED_AWAITING_INTEGRATION`
 * and an `UNVERIFIED_TAMPER_RISK` finding (triage's answer is contradicted: the marker was
 * deleted). Not found: an `ABSENT` whose reason says as of which integration, and how many
 * records not yet integrated were searched; never a bare "absent".
 *
 * @param latest - the lineage's newest signed checkpoint as the client read it (`null`: none)
 * @param chain - the deployment chain read for the residual id, or `null` (no freshness checked)
 * @param absence - what the index decided (`decideAbsence`), or `null`
 * @throws what the log reader throws other than {@link LogVerificationError} (infrastructure)
 */
export async function recallAbsence(
  log: Pick<LogReader, 'proveIn'>,
  asked: { readonly lineageId: string; readonly residualId: string },
  latest: LatestCheckpoint | null,
  chain: ReadDeploymentChain | null,
  absence: RecordFreshness | null,
): Promise<RecallAbsence> {
  const unchanged = { freshness: absence, finding: null };
  if (latest === null || (absence !== null && absence.state !== FreshnessState.ABSENT)) return unchanged;
  const indexed = chain && (chain.kind === 'PROVEN' || chain.kind === 'ABSENT') ? chain : null;
  const indexedSize = indexed?.lineage?.treeSize ?? 0;
  const size = latest.checkpoint.size;
  // What vouches for the tree searched: a signed checkpoint, the index entry, or the sealer's head MAC alone.
  const tree = treeVoucher(latest.checkpoint, chain);
  const at = indexed
    ? `the ${indexedSize} records the index holds as of deployment checkpoint ${indexed.checkpoint.size}`
    : 'no deployment index read';
  if (size <= indexedSize) {
    if (!absence) return unchanged;
    return {
      freshness: {
        ...absence,
        reason: `${absence.reason}, the last integration; ${tree} holds no record past them`,
      },
      finding: null,
    };
  }
  let search: Awaited<ReturnType<typeof searchLoggedSeal>>;
  try {
    search = await searchLoggedSeal(log, { ...asked, latest, fromSeq: indexedSize });
  } catch (error) {
    if (!(error instanceof LogVerificationError)) throw error;
    const finding = {
      verdict: error.verdict,
      reason: `absence is not proven: the lineage's records past ${at} do not verify: ${error.reason}`,
    };
    const freshness = absence && {
      ...absence,
      state: FreshnessState.INCONSISTENT,
      reason: finding.reason,
      finding,
    };
    return { freshness, finding };
  }
  if (search.kind === 'FOUND') {
    const reason = `residual ${asked.residualId} is sealed at seq ${search.seq}, proven in ${tree}, past ${at}: the answer "no such record" is contradicted (its marker was deleted)`;
    const finding = { verdict: V.UNVERIFIED_TAMPER_RISK, reason };
    const freshness = absence && {
      ...absence,
      state: FreshnessState.SEALED_AWAITING_INTEGRATION,
      reason,
      finding,
    };
    return { freshness, finding };
  }
  if (!absence) return unchanged;
  const since = latest.checkpoint.note === null ? 'the table shows sealed since (unsigned)' : 'sealed since';
  const searched = search.complete
    ? `the ${search.records} records ${since} (not yet integrated) do not hold it`
    : `the newest ${search.searched} of the ${search.records} records ${since} (not yet integrated) do not hold it; the older ones were not searched`;
  return {
    freshness: {
      ...absence,
      reason: `absent as of deployment checkpoint ${absence.checkpointSize} (${indexedSize} records of the lineage integrated); ${searched}`,
    },
    finding: null,
  };
}
