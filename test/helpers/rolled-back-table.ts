import { integratedStack } from './integrated-stack';

/**
 * An in-memory integrated stack (the sealer MAC'ing heads, no signed lineage checkpoint) put back
 * whole to an earlier state: two writes sealed and integrated in lineage `lineageId`, `seen` run
 * on that newest state (a client reading it, keeping what it keeps), then a table writer puts the
 * lineage's head, log head and records, and the deployment head, back as they were after the
 * first write's integration (docs/verifiable-log.md, "Checkpoints the client keeps"). Every item
 * put back is genuine: only a client that kept a later deployment checkpoint can tell.
 */
export async function rolledBackTable(
  lineageId: string,
  seen: (s: ReturnType<typeof integratedStack>) => Promise<void>,
): Promise<ReturnType<typeof integratedStack>> {
  const s = integratedStack({ signLineageCheckpoints: false });
  await s.send({ lineageId, residualId: 'r-0' });
  await s.integrate();
  const head = structuredClone(s.store.heads.get(lineageId));
  const logHead = structuredClone(s.store.logHeads.get(lineageId));
  const deployment = s.deployment.head;
  if (!head || !logHead) throw new Error('nothing sealed');
  await s.send({ lineageId, residualId: 'r-1' });
  await s.integrate();
  await seen(s);
  s.store.heads.set(lineageId, head);
  s.store.logHeads.set(lineageId, logHead);
  s.store.records.get(lineageId)?.delete(1);
  for (const [key, location] of s.store.markers) if (location.seq === 1) s.store.markers.delete(key);
  s.deployment.head = deployment;
  return s;
}
