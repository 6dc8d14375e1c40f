import { buildChainReceipt } from '../../client/chain-receipts';
import type { ChainReceipt } from '../../shared/integrator/chain-receipt';
import { FACTORY_LINEAGE_ID } from './guard-factories';
import { INTEGRATION_NOW_MS } from './in-process-integration';
import { recoveryStack } from './recovery-stack';

/**
 * A format-2 receipt of a record integrated after a legitimate restore and the operator's
 * re-anchor (docs/deployment-log.md, "Re-anchor"; docs/verifiable-log.md, "Receipts"), built in a
 * {@link recoveryStack}: two writes integrated, a snapshot, a third integrated (the witness
 * cosigns 2 leaves), the table restored to the snapshot, a write sealed by a cold sealer, the
 * re-anchor, its integration; the receipt is of that last record (seq 2), under the witnessed
 * test policy, at `nowSeconds`.
 */
export async function reAnchoredReceipt(): Promise<{
  readonly receipt: ChainReceipt;
  readonly policyText: string;
  readonly nowSeconds: number;
}> {
  const s = await recoveryStack();
  const integrator = s.integrator();
  await s.write(FACTORY_LINEAGE_ID, 'r-0');
  await s.write(FACTORY_LINEAGE_ID, 'r-1');
  await integrator.integrate(s.notices.splice(0));
  const restore = s.snapshot();
  await s.write(FACTORY_LINEAGE_ID, 'r-2');
  await integrator.integrate(s.notices.splice(0));
  restore();
  await s.write(FACTORY_LINEAGE_ID, 'r-2b');
  const batch = s.notices.splice(0);
  await integrator.reAnchor(await s.statement());
  await integrator.integrate(batch);
  const nowMs = () => INTEGRATION_NOW_MS;
  const receipt = await buildChainReceipt({ store: s.store, reader: s.reader, nowMs }, FACTORY_LINEAGE_ID, 2);
  return { receipt, policyText: s.policyText, nowSeconds: Math.floor(INTEGRATION_NOW_MS / 1000) };
}
