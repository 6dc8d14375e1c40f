import { type IntegratorDeps, IntegratorService } from '../../functions/integrator/integrator-service';
import type { SealOutcome } from '../../functions/sealer/seal-outcomes';
import { type SealerDeps, SealerService } from '../../functions/sealer/sealer-service';
import { MemoryIndexNodeStore } from '../../shared/index/memory-index-node-store';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { FakeMetrics, fakeLogger, sealRequestBody } from './factories';
import { FACTORY_NOW_MS } from './guard-factories';
import { InMemoryDeploymentLogStore } from './in-memory-deployment-log-store';
import type { InMemoryLineageStore } from './in-memory-lineage-store';
import { MemoryNoticeKey } from './memory-notice-key';
import { testLogSigner } from './pipeline-keys';
import { testSealerDeps } from './service-factories';

/** The integrators' clock of an {@link inProcessIntegration} (ms since the Unix epoch): 2 s after the factories' "now". */
export const INTEGRATION_NOW_MS = FACTORY_NOW_MS + 2000;

/** How an {@link inProcessIntegration} differs from the default. */
export interface InProcessIntegrationOptions {
  /**
   * The sealer reads the index floor under the deployment head (docs/sealing.md, "The index
   * floor"), as deployed sealers do; default `false` (a sealer that ignores the deployment log).
   */
  readonly indexFloor?: boolean;
  /** Sealer dependencies replacing {@link testSealerDeps}' (e.g. `signLineageCheckpoints`). */
  readonly sealer?: Partial<SealerDeps>;
}

/**
 * The real sealer and integrators in memory over one table (docs/deployment-log.md,
 * "Integration"): the sealer on {@link testSealerDeps}, its notices collected in `notices`, the
 * deployment log and the index in memory.
 * - `seal(fields, by?)` seals the write of `fields` (`validWriteRequest` defaults, signed by the
 *   test writer) with the current sealer (or `by`), message ids `m-1`, `m-2`, … in order;
 * - `write(lineageId, residualId, by?)` is `seal` of that write, and throws when it is not `SEALED`;
 * - `coldSealer()` replaces the current sealer by one with no memory (a cold start);
 * - `newSealer()` is another sealer instance over the same table, beside the current one;
 * - `integrator(overrides?)` is a new integrator over the table with the test log key and the
 *   sealer's anchor and notice key (`noticeKey`, in memory, which the sealer MACs its notices
 *   under), no witness, clock {@link INTEGRATION_NOW_MS}, unless `overrides` say otherwise.
 */
export function inProcessIntegration(options: InProcessIntegrationOptions = {}) {
  const notices: SealedRunNotice[] = [];
  const deployment = new InMemoryDeploymentLogStore();
  const index = new MemoryIndexNodeStore();
  const noticeKey = new MemoryNoticeKey();
  const deps = {
    ...testSealerDeps(),
    noticeKey,
    ...options.sealer,
    notifier: {
      notify: async (sent: readonly SealedRunNotice[]) => {
        notices.push(...sent);
        return [];
      },
    },
    ...(options.indexFloor ? { index: { deployment, nodes: index, witness: null } } : {}),
  };
  const store = deps.store as InMemoryLineageStore;
  let sealer = new SealerService(deps);
  let n = 0;
  const seal = (fields: Partial<ResidualWriteRequest>, by?: SealerService): Promise<SealOutcome> =>
    (by ?? sealer).handle({ messageId: `m-${++n}`, body: sealRequestBody(fields), sentAtMs: FACTORY_NOW_MS + n });
  const write = async (lineageId: string, residualId: string, by?: SealerService): Promise<void> => {
    const outcome = await seal({ lineageId, residualId }, by);
    if (outcome.kind !== 'SEALED') throw new Error(`${lineageId}/${residualId} not sealed: ${JSON.stringify(outcome)}`);
  };
  const coldSealer = () => {
    sealer = new SealerService(deps);
  };
  const newSealer = () => new SealerService(deps);
  const integrator = (overrides: Partial<IntegratorDeps> = {}) =>
    new IntegratorService({
      lineages: store,
      deployment,
      index,
      signer: testLogSigner(),
      anchor: deps.anchor,
      noticeKey,
      witness: null,
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: () => INTEGRATION_NOW_MS,
      ...overrides,
    });
  return {
    store,
    deployment,
    index,
    notices,
    noticeKey,
    sealerDeps: deps,
    seal,
    write,
    coldSealer,
    newSealer,
    integrator,
  };
}
