import { IndexNodeMissingError } from '../errors';
import type { LineageIndexValue } from '../index/index-entry';
import { proveIndexKey } from '../index/prove-index-key';
import type { IndexNodeStore } from '../ports/index-node-store';
import type { IntegrationEvidence } from './integration-evidence';
import { missingNodeEvidence } from './missing-node-evidence';

/**
 * The lineage entries the index of `root` holds for `lineageIds`, each read along its path with
 * every node checked against its hash (docs/verifiable-index.md, "Node store").
 *
 * @throws {IndexNodeMissingError} when a node is missing or edited; what the store throws
 */
export async function readHeldLineages(
  store: IndexNodeStore,
  root: Uint8Array,
  lineageIds: readonly string[],
): Promise<Map<string, LineageIndexValue | null>> {
  const held = new Map<string, LineageIndexValue | null>();
  await Promise.all(
    lineageIds.map(async (lineageId) => {
      const proven = await proveIndexKey(store, root, { kind: 'lineage', lineageId });
      held.set(lineageId, proven.kind === 'presence' ? (proven.entry.value as LineageIndexValue) : null);
    }),
  );
  return held;
}

/**
 * {@link readHeldLineages}, lineage by lineage: a lineage whose path crosses a node the store does
 * not hold (or holds edited) is left out with `INDEX_NODE_MISSING` evidence instead of failing the
 * batch (docs/deployment-log.md, "Integration", step 2). `held` has an entry for every other one.
 *
 * @throws what the store throws
 */
export async function readHeldLineagesApart(
  store: IndexNodeStore,
  root: Uint8Array,
  lineageIds: readonly string[],
): Promise<{ held: Map<string, LineageIndexValue | null>; missing: IntegrationEvidence[] }> {
  const held = new Map<string, LineageIndexValue | null>();
  const missing: IntegrationEvidence[] = [];
  await Promise.all(
    lineageIds.map(async (lineageId) => {
      try {
        held.set(lineageId, (await readHeldLineages(store, root, [lineageId])).get(lineageId) ?? null);
      } catch (error) {
        if (!(error instanceof IndexNodeMissingError)) throw error;
        missing.push(missingNodeEvidence(lineageId, error));
      }
    }),
  );
  missing.sort((a, b) => (a.lineageId < b.lineageId ? -1 : 1));
  return { held, missing };
}
