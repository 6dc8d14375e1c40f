import type { JsonValue } from '../../shared/canonical/canonical-json';
import { integratedStack } from './integrated-stack';

/**
 * An in-memory integrated stack whose lineage `lineageId` was rolled back behind the index: two
 * writes sealed and integrated (the index holds 2 records), then a table writer puts back the
 * genuinely signed head, log head and records of the first write alone, leaving the deployment
 * log intact (docs/deployment-log.md, "Clients"). `payloads`: what the two writes carry (default
 * `validWriteRequest`'s); `options` go to `integratedStack` (`signLineageCheckpoints: false`: heads without one).
 */
export async function rolledBackLineage(
  lineageId: string,
  payloads: readonly [JsonValue, JsonValue] | null = null,
  options: { readonly signLineageCheckpoints?: boolean } = {},
) {
  const s = integratedStack(options);
  await s.send({ lineageId, residualId: 'r-0', ...(payloads ? { payload: payloads[0] } : {}) });
  const head = s.store.heads.get(lineageId);
  const logHead = s.store.logHeads.get(lineageId);
  if (!head || !logHead) throw new Error('nothing sealed');
  const snapshot = { head: structuredClone(head), logHead: structuredClone(logHead) };
  await s.send({ lineageId, residualId: 'r-1', ...(payloads ? { payload: payloads[1] } : {}) });
  await s.integrate();
  s.store.heads.set(lineageId, snapshot.head);
  s.store.logHeads.set(lineageId, snapshot.logHead);
  s.store.records.get(lineageId)?.delete(1);
  for (const [key, location] of s.store.markers) if (location.seq === 1) s.store.markers.delete(key);
  return s;
}
