import { lineageHeadOf } from '../../shared/seal/lineage-head';
import { sealRecord } from '../../shared/seal/seal-record';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { verifyChain } from '../../shared/seal/verify-chain';
import { buildManifest } from '../../shared/triage/build-manifest';
import { cloneRecord, sealInput, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from './seal-factories';

/** A script a table writer plants in a stored string: the report must show it as text and never run it. */
export const PLANTED_SCRIPT = '<script>window.__planted = 1</script><img src=x onerror="window.__planted = 2">';

/**
 * A known lineage for the report tests: four records over three environments.
 *
 * - seq 0 (epoch 1): claims `build` [node], `lint` [yamllint], `runtime` [docker]; baseline env A.
 * - seq 1 (epoch 2) supersedes seq 0 at env B (node changed, docker gone): `build` re-probed,
 *   `lint` retained, `runtime` invalidated (dropped).
 * - seq 2 (epoch 3) supersedes seq 1 at env C (yamllint changed): `build` retained, `lint` re-probed.
 * - seq 3 (epoch 3), a plain append, is then edited in the table: its residual id becomes
 *   {@link PLANTED_SCRIPT}, so it fails verification (HASH_MISMATCH).
 *
 * So the timeline has 4 points and 2 supersession rules, the heatmap 3 + 2 = 5 cells, and the
 * drifted keys are `tool:docker`, `tool:node` (once each) and `tool:yamllint` (once).
 */
export async function reportLineage(): Promise<{
  records: unknown[];
  verification: Awaited<ReturnType<typeof verifyChain>>;
}> {
  const anchor = testAnchor();
  const envA = { 'os:version': '24.04', 'tool:node': '20.1', 'tool:yamllint': '1.0', 'tool:docker': '26.0' };
  const envB = { 'os:version': '24.04', 'tool:node': '22.0', 'tool:yamllint': '1.0' };
  const envC = { 'os:version': '24.04', 'tool:node': '22.0', 'tool:yamllint': '1.1' };
  const manifest = (env: Record<string, string>, claims: Record<string, string[]>) =>
    buildManifest({ env, structuralKeys: ['os:version'], claimDependencyMap: claims });
  const plan = [
    {
      epoch: 1,
      supersedes: false,
      manifest: manifest(envA, { build: ['tool:node'], lint: ['tool:yamllint'], runtime: ['tool:docker'] }),
    },
    { epoch: 2, supersedes: true, manifest: manifest(envB, { build: ['tool:node'], lint: ['tool:yamllint'] }) },
    { epoch: 3, supersedes: true, manifest: manifest(envC, { build: ['tool:node'], lint: ['tool:yamllint'] }) },
    { epoch: 3, supersedes: false, manifest: manifest(envC, { build: ['tool:node'], lint: ['tool:yamllint'] }) },
  ];
  const records: SealedRecord[] = [];
  for (const [index, step] of plan.entries()) {
    const head = records.length === 0 ? null : lineageHeadOf(records[records.length - 1] as SealedRecord);
    const input = sealInput(index, {
      generationEpoch: step.epoch,
      manifest: step.manifest,
      ...(step.supersedes && head ? { supersedes: { seq: head.seq, recordHash: head.recordHash } } : {}),
    });
    records.push(await sealRecord(input, head, anchor, TEST_NOW_MS + index * 60_000));
  }
  const raw: unknown[] = records.map(cloneRecord);
  (raw[3] as SealedRecord).header.residualId = PLANTED_SCRIPT;
  const verification = await verifyChain(raw, { lineageId: TEST_LINEAGE_ID, anchor });
  return { records: raw, verification };
}
