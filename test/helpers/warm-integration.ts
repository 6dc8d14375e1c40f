import { expect, vi } from 'vitest';
import type { IntegratorService } from '../../functions/integrator/integrator-service';
import type { LineageIndexValue } from '../../shared/index/index-entry';
import { FrontierCache } from '../../shared/integrator/frontier-cache';
import { readHeldLineages } from '../../shared/integrator/read-held-lineages';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import { inProcessIntegration } from './in-process-integration';

/**
 * An in-process stack with a warm integrator (docs/deployment-log.md, "A warm integrator"): its
 * {@link FrontierCache}, `nodeReads()` (the store's `readNodes` calls, one `BatchGetItem` each in
 * DynamoDB, since the last call), `integrate(by)` (every notice sent since the last call, by the
 * warm integrator unless said) and `held(lineageId)` (the index's value for the lineage, `null`
 * when it holds none).
 */
export function warmIntegrationStack() {
  const table = inProcessIntegration();
  const frontiers = new FrontierCache();
  const warm = table.integrator({ frontiers });
  const readNodes = vi.spyOn(table.store, 'readNodes');
  const nodeReads = () => {
    const calls = readNodes.mock.calls.length;
    readNodes.mockClear();
    return calls;
  };
  const integrate = (by: IntegratorService = warm) => by.integrate(table.notices.splice(0));
  const held = async (lineageId: string): Promise<LineageIndexValue | null> => {
    const root = Buffer.from(table.deployment.head?.indexRoot ?? '', 'hex');
    return (await readHeldLineages(table.index, root, [lineageId])).get(lineageId) ?? null;
  };
  return { ...table, frontiers, warm, nodeReads, integrate, held };
}

/** The stack {@link warmIntegrationStack} makes. */
export type WarmIntegrationStack = ReturnType<typeof warmIntegrationStack>;

/**
 * The table writer between two integrations of lineage `lineageId`: integrated at 2 by the warm
 * instance (which then keeps its frontier), written to 4, `attack` applied, the batch integrated
 * by the warm instance and then by a cold one. Asserts that both raise the same evidence, that
 * nothing was signed and that the index still holds size 2.
 *
 * @returns the evidence kinds and how many `readNodes` calls the warm instance made
 */
export async function attackedBetweenIntegrations(
  lineageId: string,
  attack: (s: WarmIntegrationStack) => Promise<void> | void,
): Promise<{ kinds: string[]; warmNodeReads: number }> {
  const s = warmIntegrationStack();
  await s.write(lineageId, 'r-0');
  await s.write(lineageId, 'r-1');
  await s.integrate();
  expect(s.frontiers.size).toBe(1);
  await s.write(lineageId, 'r-2');
  await s.write(lineageId, 'r-3');
  await attack(s);
  const batch: SealedRunNotice[] = s.notices.splice(0);
  s.nodeReads();
  const warm = await s.warm.integrate(batch);
  const warmNodeReads = s.nodeReads();
  const cold = await s.integrator().integrate(batch);
  const kinds = (r: typeof warm) => r.evidence.map((e) => e.kind);
  expect(kinds(warm)).toEqual(kinds(cold));
  expect(warm.checkpoint).toBeNull();
  expect((await s.held(lineageId))?.treeSize).toBe(2);
  return { kinds: kinds(warm), warmNodeReads };
}
