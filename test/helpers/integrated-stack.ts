import { freshnessPolicy } from '../../client/freshness-policy';
import { ResealClient, type ResealClientDeps } from '../../client/reseal-client';
import { SealerService } from '../../functions/sealer/sealer-service';
import { parseCheckpointBody } from '../../shared/log/checkpoint';
import { formatVerifierKey } from '../../shared/log/note-key';
import { formatSignatureLine } from '../../shared/log/signature-line';
import { parseSignedNote } from '../../shared/log/signed-note';
import { cosign } from '../../shared/witness/cosign';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { TEST_CLIENT_OUTPUTS } from './factories';
import { FACTORY_NOW_MS, validWriteRequest } from './guard-factories';
import { inProcessIntegration } from './in-process-integration';
import { witnessedStackPolicyText } from './in-process-witness';
import { TEST_CLIENT_KEYS, TEST_LOG_KEY } from './pipeline-keys';
import { testWitnessSigner } from './witness-factories';

/** The unwitnessed policy of the test stack: its log key, `quorum none`. */
export const unwitnessedTestPolicy = () => freshnessPolicy(`log ${formatVerifierKey(TEST_LOG_KEY)}\nquorum none\n`);

/** The witnessed policy of the test stack: its log key and the test witness, `quorum w1`. */
export async function witnessedTestPolicy(maxAgeSeconds?: number) {
  return freshnessPolicy(await witnessedStackPolicyText(), maxAgeSeconds);
}

/** `note` with a `cosignature/v1` line of the test witness at `timestamp` (POSIX seconds) added. */
export async function cosignedByTestWitness(note: string, timestamp: number): Promise<string> {
  const { text } = parseSignedNote(note);
  parseCheckpointBody(text);
  const signature = await cosign(text, timestamp, testWitnessSigner());
  return `${note}${formatSignatureLine(signature)}`;
}

/**
 * The real sealer and integrator in memory on one table (docs/deployment-log.md): writes are
 * sealed with `send`, the sealer's notices collected, and integrated with `integrate`; `client`
 * reads the lineage table, the deployment log and the index with the pinned test keys, a fake
 * clock its sleeps advance, and `onSleep` run at each sleep (to integrate while a client waits).
 * `signLineageCheckpoints: false` runs the sealer as it runs once it stops signing lineage
 * checkpoints (heads carry its head-state MAC alone).
 */
export function integratedStack(stackOptions: { readonly signLineageCheckpoints?: boolean } = {}) {
  const {
    store,
    deployment,
    index,
    notices,
    sealerDeps: deps,
    seal,
    integrator,
  } = inProcessIntegration({
    indexFloor: true,
    ...(stackOptions.signLineageCheckpoints === undefined
      ? {}
      : { sealer: { signLineageCheckpoints: stackOptions.signLineageCheckpoints } }),
  });
  const warm = integrator();
  // A sealer that reads no deployment index (as before the index floor): it trusts the marker
  // alone, so a write whose marker was deleted is sealed a second time (docs/sealing.md, "The index floor").
  const unfloored = new SealerService({ ...deps, index: null });
  const clock = { now: FACTORY_NOW_MS + 5000 };
  return {
    store,
    deployment,
    index,
    clock,
    /** Seals the write of `fields` (`validWriteRequest` defaults, signed by the test writer). */
    send: (fields: Partial<ResidualWriteRequest>) => seal(fields),
    /** Seals like `send`, by a sealer without the index floor (one that can seal a residual id twice). */
    sendUnfloored: (fields: Partial<ResidualWriteRequest>) => seal(fields, unfloored),
    request: (fields: Partial<ResidualWriteRequest>) => validWriteRequest(fields),
    integrate: () => warm.integrate(notices.splice(0)),
    /** Drops the sealer's notices not integrated yet (items a table writer wrote: no notice reaches the integrator). */
    dropNotices: () => void notices.splice(0),
    client: (options: { deps?: ResealClientDeps; onSleep?: () => Promise<void> } = {}) =>
      new ResealClient(TEST_CLIENT_OUTPUTS, {
        ...TEST_CLIENT_KEYS,
        store,
        anchor: deps.anchor,
        deploymentLog: deployment,
        indexNodes: index,
        nowMs: () => clock.now,
        sleep: async (ms) => {
          clock.now += ms;
          await options.onSleep?.();
        },
        ...options.deps,
      }),
  };
}
