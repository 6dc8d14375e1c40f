import type { DeploymentRollbackCheck, TruncationReference, VerifiedRecall } from './verified-recall';

/**
 * How a reader names the two things that check a rollback, as its caller sets them: the CLI's
 * `--checkpoint-store` and `--checkpoint`, the MCP server's `RESEAL_CHECKPOINTS` and the tool's
 * `checkpoint` argument.
 */
export interface TruncationHints {
  /** What keeps checkpoints, as an instruction ("pass --checkpoint-store"). */
  readonly keep: string;
  /** The caller's `{ seq, recordHash }` ("--checkpoint"). */
  readonly head: string;
}

/** The CLI's names (docs/cli.md). */
export const CLI_TRUNCATION_HINTS: TruncationHints = { keep: 'pass --checkpoint-store', head: '--checkpoint' };

/**
 * What a read rests on against a rollback: the lineage checkpoints it was checked against, the
 * deployment checkpoint its chain verified, and what the client could keep.
 */
export interface TruncationBasis {
  /** The lineage checkpoints kept or given that the read was checked against. */
  readonly against: readonly TruncationReference[];
  /** The deployment checkpoint the read's chain verified, or `null`. */
  readonly deployment: DeploymentRollbackCheck | null;
  /** Whether the client keeps checkpoints (a checkpoint store). */
  readonly keepsCheckpoints: boolean;
  /** Whether the client reads the deployment log. */
  readonly readsDeploymentLog: boolean;
  /**
   * Whether the lineage carries signed checkpoints, as far as the read shows: `false` for a tree
   * only the sealer's head MAC and the index vouch for (the stack's default), `null` when unknown.
   */
  readonly lineageSigned: boolean | null;
}

/** The {@link TruncationBasis} of a recall, as the client decided it. */
export function recallTruncationBasis(recall: Pick<VerifiedRecall, 'checks' | 'checkpoint'>): TruncationBasis {
  const { truncationCheckedAgainst, deployment, keepsCheckpoints, readsDeploymentLog } = recall.checks;
  return {
    against: truncationCheckedAgainst,
    deployment,
    keepsCheckpoints,
    readsDeploymentLog,
    lineageSigned: recall.checkpoint === null ? null : recall.checkpoint.note !== null,
  };
}

/** A lineage checkpoint a rollback was checked against, in words. */
function against(reference: TruncationReference, hints: TruncationHints): string {
  switch (reference.kind) {
    case 'KEPT_CHECKPOINT':
      return `the kept checkpoint (${reference.size} records)`;
    case 'GIVEN_CHECKPOINT':
      return `the given trusted checkpoint (${reference.size} records)`;
    case 'GIVEN_HEAD':
      return `${hints.head} (seq ${reference.seq})`;
  }
}

/** What the deployment checkpoint checked, in words; `null` when it checked nothing (neither kept nor witnessed). */
function deploymentAgainst(deployment: DeploymentRollbackCheck, lineageKept: boolean): string | null {
  const witnessed = deployment.witnessed ? 'witnessed ' : '';
  if (deployment.kept) {
    // As the Python client words it (its recall's reason).
    return `the ${witnessed}deployment checkpoint kept in the checkpoint store (${lineageKept ? '' : 'no lineage checkpoint kept; '}this one, of ${deployment.size} leaves, is no older)`;
  }
  if (deployment.witnessed) {
    return `the witnessed deployment checkpoint of ${deployment.size} leaves (it catches a rollback older than the ${deployment.windowSeconds ?? '?'} s freshness window; nothing kept)`;
  }
  return null;
}

/**
 * What a rollback or truncation of the lineage a recall or walk read was checked against, as the text after
 * "truncation" (docs/verifiable-log.md, "Recall" and "Checkpoints the client keeps";
 * docs/deployment-log.md, "Clients"): the lineage checkpoints kept or given, and the deployment
 * checkpoint kept in the store or cosigned by the policy's witnesses (with unsigned lineage
 * checkpoints, a stack's default, the only one there is). When nothing checked it, says what
 * would. Whether the lineage signs its checkpoints is only what the head item shows (a table
 * writer can strip the signed checkpoint from it), so the text says so of the item, and keeps
 * suggesting a checkpoint store to a client that has none.
 */
export function truncationCheckText(basis: TruncationBasis, hints: TruncationHints = CLI_TRUNCATION_HINTS): string {
  const { deployment, keepsCheckpoints, readsDeploymentLog } = basis;
  const lineageKept = basis.against.some((r) => r.kind === 'KEPT_CHECKPOINT');
  const checked = [
    ...basis.against.map((r) => against(r, hints)),
    ...(deployment ? [deploymentAgainst(deployment, lineageKept)].filter((t) => t !== null) : []),
  ];
  if (checked.length > 0) return `checked against ${checked.join(' and ')}`;
  if (basis.lineageSigned !== false) {
    if (!keepsCheckpoints) return `NOT checked: no trusted checkpoint (${hints.keep} to keep one, or ${hints.head})`;
    return `NOT checked: nothing kept yet (a signed lineage checkpoint proven now is kept and checks the next read), and ${hints.head} not given`;
  }
  // `lineageSigned` false is what the head item shows, and a table writer can strip its signed
  // checkpoint: said as the item's state, never as the stack's, and a store is never advised against.
  const unsigned = 'the head item carries no signed lineage checkpoint';
  if (readsDeploymentLog && !keepsCheckpoints) {
    return `NOT checked: nothing kept (${unsigned}; ${hints.keep} to keep the deployment checkpoint, which catches a rollback, or ${hints.head})`;
  }
  if (readsDeploymentLog) {
    return `NOT checked: nothing kept (${unsigned} and no deployment checkpoint was authenticated); ${hints.head} checks it`;
  }
  if (!keepsCheckpoints) {
    return `NOT checked: ${unsigned} and this client reads no deployment log (${hints.keep} to keep a signed lineage checkpoint a later read proves, or ${hints.head})`;
  }
  return `NOT checked: nothing kept yet (${unsigned} and this client reads no deployment log); ${hints.head} checks it`;
}
