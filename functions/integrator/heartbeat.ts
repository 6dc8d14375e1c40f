import { authenticatePublished } from '../../shared/integrator/authenticate-published';
import { authenticateDeploymentHead } from '../../shared/integrator/deployment-head';
import { type HeartbeatDecision, heartbeatDue } from '../../shared/integrator/heartbeat-due';
import { type NoteVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import type { DeploymentLogStore } from '../../shared/ports/deployment-log-store';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { MetricName } from '../common/metric-name';
import type { PipelineMetrics } from '../common/pipeline-metrics';
import type { ServiceLogger } from '../common/service-logger';
import { publishedSize } from './published-size';
import type { IntegratorWitness } from './witness-submission';
import { submitToWitness } from './witness-submission';

/** Dependencies of {@link DeploymentHeartbeat}, injected. */
export interface HeartbeatDeps {
  readonly deployment: Pick<DeploymentLogStore, 'readHead' | 'readNodes' | 'publish'>;
  /**
   * The log key's name and public key only: the heartbeat authenticates the head but never signs
   * with the log key (the type leaves `sign` out).
   */
  readonly logKey: Pick<NoteSigner, 'keyName' | 'publicKey'>;
  /** `null`: no witness configured; there are no cosignatures to keep fresh. */
  readonly witness: IntegratorWitness | null;
  /** Re-cosign once the published quorum is this old, seconds (`heartbeatThresholdSeconds`). */
  readonly thresholdSeconds: number;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
}

/** What one heartbeat did. */
export type HeartbeatReport =
  | { readonly kind: 'NO_WITNESS' }
  /** No deployment checkpoint yet: nothing to cosign (the first integration publishes). */
  | { readonly kind: 'EMPTY_LOG' }
  | { readonly kind: 'FRESH'; readonly size: number; readonly ageSeconds: number | null }
  | {
      /** Submitted: `published` is the head's checkpoint with the new cosignature, or `null` (refused, unreachable, head moved). */
      readonly kind: 'SUBMITTED';
      readonly size: number;
      readonly reason: Extract<HeartbeatDecision, { kind: 'DUE' }>['reason'];
      readonly published: string | null;
      readonly witnessStatus: number | 'UNREACHABLE';
    };

/**
 * The integrator's heartbeat (docs/deployment-log.md, "Freshness window and interval"; docs/witness.md,
 * "The freshness window of a cold client"): on each scheduled tick, when the published quorum of
 * the deployment head is older than the threshold (or the head was never published), it submits
 * the head's own signed checkpoint to the witness again (C2SP tlog-witness: the same checkpoint
 * from its own size, no proof, is cosigned anew; a larger head goes from the published size with
 * its consistency proof) and publishes it with the fresh cosignature. It makes no `Sign` with the
 * log key: the checkpoint is the one the last integration signed. One witness `Sign` per
 * heartbeat that submits; none when an integration published within the threshold.
 *
 * The head is authenticated as an integration does (step 1); a rolled-back head gets a 409 from a
 * witness that has seen the larger tree, so its cosignatures age out and clients refuse it. The
 * publish is conditional on the head as read, so a heartbeat racing an integration never
 * overwrites a newer checkpoint's note.
 *
 * @throws {LogStateError} when the head item does not authenticate (logged by the handler), or
 *   an infrastructure failure
 */
export class DeploymentHeartbeat {
  readonly #deps: HeartbeatDeps;
  #key: NoteVerifierKey | null = null;

  constructor(deps: HeartbeatDeps) {
    this.#deps = deps;
  }

  async beat(): Promise<HeartbeatReport> {
    const { deployment, logKey, witness, thresholdSeconds, metrics, logger, clock } = this.#deps;
    if (!witness) return this.#counted({ kind: 'NO_WITNESS' });
    const read = await deployment.readHead();
    if (read === null) return this.#counted({ kind: 'EMPTY_LOG' });
    this.#key ??= noteVerifierKey(logKey.keyName, await logKey.publicKey());
    const origin = logKey.keyName;
    const head = authenticateDeploymentHead(read, this.#key, origin);
    const published = authenticatePublished(read.published, head, this.#key, origin);
    const decision = heartbeatDue({
      published,
      headSize: head.size,
      policy: witness.policy,
      maxAgeSeconds: witness.maxAgeSeconds,
      thresholdSeconds,
      nowSeconds: Math.floor(clock() / 1000),
    });
    if (decision.kind === 'FRESH') {
      return this.#counted({ kind: 'FRESH', size: head.size, ageSeconds: decision.ageSeconds });
    }
    const submitted = await submitToWitness({
      witness,
      note: read.checkpoint,
      state: head,
      publishedSize: publishedSize(published),
      deployment,
      logger,
      clock,
    });
    let note = submitted.published;
    if (note !== null && !(await deployment.publish(head.size, read.checkpoint, note))) {
      logger.warn('the deployment head moved during the heartbeat; the integration that moved it publishes', {
        size: head.size,
      });
      note = null;
    }
    if (note !== null) logger.info('heartbeat: the deployment checkpoint is cosigned anew', { size: head.size });
    metrics.count(MetricName.Heartbeat, { outcome: note === null ? 'NOT_PUBLISHED' : 'PUBLISHED' });
    return {
      kind: 'SUBMITTED',
      size: head.size,
      reason: decision.reason,
      published: note,
      witnessStatus: submitted.witnessStatus,
    };
  }

  #counted<R extends HeartbeatReport>(report: R): R {
    this.#deps.metrics.count(MetricName.Heartbeat, { outcome: report.kind });
    return report;
  }
}
