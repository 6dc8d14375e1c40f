import DataLoader from 'dataloader';
import { IndexNodeMissingError, LogStateError } from '../../shared/errors';
import type { LineageIndexValue, ResidualIndexValue } from '../../shared/index/index-entry';
import { proveIndexKey } from '../../shared/index/prove-index-key';
import { authenticateDeploymentHead } from '../../shared/integrator/deployment-head';
import { readHeldLineages } from '../../shared/integrator/read-held-lineages';
import { storedReAnchor } from '../../shared/integrator/stored-re-anchor';
import type { NoteVerifierKey } from '../../shared/log/note-key';
import type { DeploymentLogStore } from '../../shared/ports/deployment-log-store';
import type { IndexNodeStore } from '../../shared/ports/index-node-store';
import { checkPolicy } from '../../shared/witness/policy-check';
import type { TlogPolicy } from '../../shared/witness/tlog-policy';
import { MetricName } from '../common/metric-name';
import type { PipelineMetrics } from '../common/pipeline-metrics';
import type { ServiceLogger } from '../common/service-logger';

/** Where the sealer reads the deployment index from (docs/sealing.md, "The index floor"). */
export interface SealerIndexDeps {
  /** The deployment log's head item: only read. */
  readonly deployment: Pick<DeploymentLogStore, 'readHead'>;
  /** The index's node store: only read, every node checked against its hash. */
  readonly nodes: IndexNodeStore;
  /**
   * The witness policy and maximum age (seconds) the integrator publishes under, or `null`
   * without a witness. A published checkpoint that does not meet it now is logged and counted.
   */
  readonly witness: { readonly policy: TlogPolicy; readonly maxAgeSeconds: number } | null;
  /**
   * The operator's floor (`DEPLOYMENT_MIN_SIZE`, leaves; default 0), as the integrator's: a
   * deployment head smaller than it (or none at all) is a table writer's restore or deletion, and
   * every run is refused `INDEX_UNVERIFIABLE`. The sealer has no other floor at a cold start
   * (docs/sealing.md, "The index floor").
   */
  readonly minSize?: number;
}

/** What the index holds for one run: the lineage's entry and the entries of the run's residual ids. */
export interface IndexFloor {
  readonly kind: 'FLOOR';
  /** Leaves of the deployment log the floor was read at; 0 when nothing was ever integrated. */
  readonly deploymentSize: number;
  /** The lineage's indexed head, `null` when it was never integrated (no floor). */
  readonly lineage: LineageIndexValue | null;
  /** The run's residual ids the index maps in this lineage, with the record each was sealed as. */
  readonly residuals: ReadonlyMap<string, ResidualIndexValue>;
}

/** The deployment index a sealer invocation decides its runs on: its size (leaves) and index root. */
interface IndexAt {
  readonly kind: 'AT';
  /** Leaves of the deployment log; 0 when nothing was ever integrated. */
  readonly size: number;
  readonly indexRoot: Uint8Array;
}

/** The index floors of one sealer invocation's runs, over one deployment-head read ({@link SealerIndex.invocation}). */
export interface IndexFloors {
  /**
   * The lineage's entry and those of `residualIds` in the invocation's deployment index.
   *
   * @param key - the log key (its name is the deployment log's origin, `reseal/<stackName>`)
   * @returns the entries, or why the index cannot be read (the run is then refused)
   * @throws what the stores throw (infrastructure: the message group is retried)
   */
  floor(
    lineageId: string,
    residualIds: readonly string[],
    key: NoteVerifierKey,
  ): Promise<IndexFloor | IndexUnverifiable>;
}

/** The index could not be read: the deployment head does not authenticate, or a node is missing or edited. */
export interface IndexUnverifiable {
  readonly kind: 'UNVERIFIABLE';
  readonly reason: string;
}

/**
 * The sealer's reader of the deployment index (docs/sealing.md, "The index floor"): per run and
 * lineage, the lineage's entry and those of the run's residual ids, as of the newest
 * deployment head that authenticates with the log key (`authenticateDeploymentHead`: the signed
 * checkpoint, and its last leaf holding the index root). Every node is read with `proveIndexKey`
 * (checked against its hash); the paths of all keys are walked together, one `getTiles` call
 * (one `BatchGetItem`) per level of tiles, each tile read once.
 *
 * Warm, it remembers the largest deployment state it read: a head item put back to an older
 * signed state then lowers nothing (the remembered index root is read instead; nodes are never
 * deleted). With a witness configured, the published checkpoint is checked against the policy
 * and its maximum age; one that does not meet it is logged and counted, and the floor still
 * applies: only sealed runs trigger integrations, so refusing would stop an idle deployment.
 */
export class SealerIndex {
  readonly #deps: SealerIndexDeps;
  readonly #logger: ServiceLogger;
  readonly #metrics: PipelineMetrics;
  readonly #clock: () => number;
  #largest: { readonly size: number; readonly indexRoot: Uint8Array; readonly history: string | null } | null = null;

  constructor(
    deps: SealerIndexDeps,
    context: { logger: ServiceLogger; metrics: PipelineMetrics; clock: () => number },
  ) {
    this.#deps = deps;
    this.#logger = context.logger;
    this.#metrics = context.metrics;
    this.#clock = context.clock;
  }

  /**
   * The index floor of one run, over a deployment-head read of its own: `invocation().floor`
   * for a single run.
   *
   * @param key - the log key (its name is the deployment log's origin, `reseal/<stackName>`)
   * @returns the entries, or why the index cannot be read (the run is then refused)
   * @throws what the stores throw (infrastructure: the message group is retried)
   */
  floor(
    lineageId: string,
    residualIds: readonly string[],
    key: NoteVerifierKey,
  ): Promise<IndexFloor | IndexUnverifiable> {
    return this.invocation().floor(lineageId, residualIds, key);
  }

  /**
   * The index floors of one sealer invocation's runs (docs/pipeline.md, "Concurrency"): the
   * deployment head is read and authenticated once, when the first floor is asked for, and every
   * run of the invocation is decided on that read (a read that throws is forgotten, so a later
   * run reads again). The tiles are read through one store for the invocation: each tile once,
   * and the walks of runs that ask together merged into one `getTiles` call (one `BatchGetItem`)
   * per level of tiles.
   */
  invocation(): IndexFloors {
    let read: Promise<IndexAt | IndexUnverifiable> | null = null;
    const nodes = coalescing(this.#deps.nodes);
    return {
      floor: async (lineageId, residualIds, key) => {
        if (read === null) {
          const pending = this.#readIndex(key);
          read = pending;
          pending.catch(() => {
            if (read === pending) read = null;
          });
        }
        const at = await read;
        return at.kind === 'UNVERIFIABLE' ? at : floorAt(at, nodes, lineageId, residualIds);
      },
    };
  }

  /**
   * The index as of the newest deployment head this sealer read: the head item read once and
   * authenticated, its published checkpoint checked (with a witness), a head older than one read
   * before it kept out (the remembered one used), the operator's floor applied.
   */
  async #readIndex(key: NoteVerifierKey): Promise<IndexAt | IndexUnverifiable> {
    // What this sealer had read when this read was issued: reads may overlap (a floor asked for
    // on its own), so a read issued before an integration committed may come back after one issued later.
    const before = this.#largest;
    const stored = await this.#deps.deployment.readHead();
    let state: ReturnType<typeof authenticateDeploymentHead>;
    try {
      state = authenticateDeploymentHead(stored, key, key.name);
    } catch (error) {
      if (!(error instanceof LogStateError)) throw error;
      return { kind: 'UNVERIFIABLE', reason: error.message };
    }
    if (stored !== null) this.#checkPublished(stored.published);
    let { size, indexRoot } = state;
    const history = state.reAnchor ? Buffer.from(state.reAnchor).toString('hex') : null;
    const anchor = stored && history !== null ? storedReAnchor(stored, key, key.name) : null;
    const lost = anchor !== null && typeof anchor === 'object' ? anchor.statement.lost.size : -1;
    let largest = this.#largest;
    // A re-anchor whose lost checkpoint covers what this sealer read starts a new history
    // (docs/deployment-log.md, "Re-anchor"): the older history's index no longer applies.
    if (largest && history !== largest.history && lost >= largest.size) {
      this.#logger.warn('the deployment log was re-anchored; the index of the new history is read', {
        size,
        largest: largest.size,
        lost,
      });
      largest = null;
    }
    if (largest && size < largest.size) {
      // Older than a head read before this read was issued: the head went back (a rollback).
      // Older only than one read meanwhile by a concurrent read: read out of order, no rollback.
      if (before && size < before.size) {
        this.#logger.error('the deployment head is older than one this sealer read; the newer index is used', {
          size,
          largest: largest.size,
        });
        this.#metrics.count(MetricName.IndexFloorUnfresh, { refusal: 'ROLLED_BACK' });
      }
      ({ size, indexRoot } = largest);
    } else {
      this.#largest = { size, indexRoot, history };
    }
    // The operator's pin applies in every history (docs/deployment-log.md, "Re-anchor").
    const minSize = this.#deps.minSize ?? 0;
    if (size < minSize) {
      return {
        kind: 'UNVERIFIABLE',
        reason: `the deployment head holds ${size} leaves, below the operator's floor of ${minSize} (DEPLOYMENT_MIN_SIZE): rolled back or deleted`,
      };
    }
    return { kind: 'AT', size, indexRoot };
  }

  /** With a witness: whether the published checkpoint meets the policy now (logged and counted when not). */
  #checkPublished(published: string | null): void {
    const witness = this.#deps.witness;
    if (!witness) return;
    const check =
      published === null
        ? { kind: 'REFUSED' as const, refusal: 'NOTHING_PUBLISHED', reason: 'no checkpoint was published yet' }
        : checkPolicy({
            note: published,
            policy: witness.policy,
            maxAgeSeconds: witness.maxAgeSeconds,
            nowSeconds: Math.floor(this.#clock() / 1000),
          });
    if (check.kind === 'ACCEPTED') return;
    this.#logger.warn(
      'the published deployment checkpoint does not meet the witness policy now; the floor is the signed head',
      {
        refusal: check.refusal,
        reason: check.reason,
      },
    );
    this.#metrics.count(MetricName.IndexFloorUnfresh, { refusal: check.refusal });
  }
}

/**
 * One run's floor in the index at `at` (docs/sealing.md, "The index floor"): the lineage's entry
 * and those of its residual ids, every key's path walked together through `nodes`, each node
 * checked against its hash.
 *
 * @throws what the store throws (infrastructure: the message group is retried)
 */
async function floorAt(
  at: IndexAt,
  nodes: IndexNodeStore,
  lineageId: string,
  residualIds: readonly string[],
): Promise<IndexFloor | IndexUnverifiable> {
  const { size, indexRoot } = at;
  if (size === 0) return { kind: 'FLOOR', deploymentSize: 0, lineage: null, residuals: new Map() };
  const ids = [...new Set(residualIds)];
  try {
    const [held, proofs] = await Promise.all([
      readHeldLineages(nodes, indexRoot, [lineageId]),
      Promise.all(
        ids.map((residualId) => proveIndexKey(nodes, indexRoot, { kind: 'residual', lineageId, residualId })),
      ),
    ]);
    const residuals = new Map<string, ResidualIndexValue>();
    for (const [i, proven] of proofs.entries()) {
      if (proven.kind === 'presence') residuals.set(ids[i] as string, proven.entry.value as ResidualIndexValue);
    }
    return { kind: 'FLOOR', deploymentSize: size, lineage: held.get(lineageId) ?? null, residuals };
  } catch (error) {
    if (!(error instanceof IndexNodeMissingError)) throw error;
    return { kind: 'UNVERIFIABLE', reason: `the deployment index at size ${size}: ${error.message}` };
  }
}

/**
 * `store` with every `getTiles` call made in one tick merged into one call (one `BatchGetItem`)
 * and each tile read once, for one run: the walks of a run's keys go down tile by tile
 * together, for one invocation: the walks of its runs' keys go down tile by tile together when
 * they ask together, and each tile (content-addressed, checked against its hash) is read once.
 * Read-only.
 */
function coalescing(store: IndexNodeStore): IndexNodeStore {
  const loader = new DataLoader<Uint8Array, Uint8Array | undefined, string>(async (roots) => store.getTiles(roots), {
    cacheKeyFn: (root) => Buffer.from(root).toString('hex'),
  });
  return {
    tileLevels: store.tileLevels,
    getTiles: (roots) => Promise.all(roots.map((root) => loader.load(root))),
    putTiles: async () => {
      throw new Error('the sealer never writes index tiles');
    },
  };
}
