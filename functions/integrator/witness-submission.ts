import type { DeploymentLogState } from '../../shared/integrator/deployment-log-state';
import { proveConsistency } from '../../shared/log/consistency-proof';
import { nodeSourceOf } from '../../shared/log/node-source';
import type { DeploymentLogStore } from '../../shared/ports/deployment-log-store';
import type { WitnessClient } from '../../shared/ports/witness-client';
import { formatAddCheckpointRequest } from '../../shared/witness/add-checkpoint-request';
import { attachCosignatures } from '../../shared/witness/attach-cosignatures';
import { parseConflictSize } from '../../shared/witness/conflict-size';
import { checkPolicy } from '../../shared/witness/policy-check';
import type { TlogPolicy } from '../../shared/witness/tlog-policy';
import type { ServiceLogger } from '../common/service-logger';

/** The witness the integrator submits to, and the policy a checkpoint must meet to be published. */
export interface IntegratorWitness {
  readonly client: WitnessClient;
  readonly policy: TlogPolicy;
  /** The policy's maximum age of cosignatures, seconds (docs/witness.md, "Quorum and maximum age"). */
  readonly maxAgeSeconds: number;
}

/** What one submission of a signed deployment checkpoint to the witness gave. */
export interface WitnessSubmission {
  /** The note with the witness's cosignature, only when the policy's quorum is met now; else `null`. */
  readonly published: string | null;
  /** The witness's HTTP status, or `UNREACHABLE` when no answer came. */
  readonly witnessStatus: number | 'UNREACHABLE';
}

/** Inputs of {@link submitToWitness}. */
export interface WitnessSubmissionInput {
  readonly witness: IntegratorWitness;
  /** The signed deployment checkpoint (the log key's note) of `state`. */
  readonly note: string;
  readonly state: Pick<DeploymentLogState, 'size'>;
  /** The size the stored head says was last published (0 when none): the `old` size tried first. */
  readonly publishedSize: number;
  /** Where the consistency proof's nodes are read from (the deployment log's own tree). */
  readonly deployment: Pick<DeploymentLogStore, 'readNodes'>;
  readonly logger: ServiceLogger;
  /** Milliseconds since the epoch: the policy is checked now. */
  readonly clock: () => number;
}

/**
 * Submits a signed deployment checkpoint to the witness (C2SP tlog-witness `add-checkpoint`,
 * docs/deployment-log.md "Integration" step 6, and the heartbeat, "Freshness window and
 * interval"): from the size last published, with the RFC 9162 consistency proof from there (none
 * when it equals the checkpoint's size: the same checkpoint is cosigned anew); a 409 names the
 * witness's size, tried once more from there. It signs nothing with the log key.
 *
 * Never throws for the witness's answer: a refusal, an unreachable witness or a cosigned note that
 * does not meet the policy is logged and answered with `published: null` (fail closed).
 *
 * @throws what reading the log's tree nodes throws (an infrastructure failure)
 */
export async function submitToWitness(input: WitnessSubmissionInput): Promise<WitnessSubmission> {
  const { witness, note, state, deployment, logger, clock } = input;
  let oldSize = input.publishedSize;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const proof =
      oldSize === 0 || oldSize >= state.size
        ? []
        : await proveConsistency(
            oldSize,
            state.size,
            nodeSourceOf((refs) => deployment.readNodes(refs)),
          );
    let answer: { status: number; body: string };
    try {
      answer = await witness.client.addCheckpoint(formatAddCheckpointRequest({ oldSize, proof, note }));
    } catch (error) {
      logger.error('the witness is unreachable; nothing new is published (fail closed)', { error });
      return { published: null, witnessStatus: 'UNREACHABLE' };
    }
    if (answer.status === 409 && attempt === 0) {
      const size = parseConflictSize(answer.body);
      if (size !== null && size <= state.size && size !== oldSize) {
        oldSize = size;
        continue;
      }
    }
    if (answer.status !== 200) {
      logger.error('the witness refused the deployment checkpoint; nothing new is published', {
        status: answer.status,
        body: answer.body.slice(0, 512),
        oldSize,
        size: state.size,
      });
      return { published: null, witnessStatus: answer.status };
    }
    const cosigned = attachCosignatures(note, answer.body);
    const check = checkPolicy({
      note: cosigned,
      policy: witness.policy,
      maxAgeSeconds: witness.maxAgeSeconds,
      nowSeconds: Math.floor(clock() / 1000),
    });
    if (check.kind !== 'ACCEPTED') {
      logger.error('the cosigned checkpoint does not meet the policy; nothing new is published', { check });
      return { published: null, witnessStatus: 200 };
    }
    return { published: cosigned, witnessStatus: 200 };
  }
  return { published: null, witnessStatus: 409 };
}
