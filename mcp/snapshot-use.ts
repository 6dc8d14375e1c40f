import type { EnvSnapshot } from '../shared/schemas/env-snapshot';
import type { SnapshotOutput } from './outputs/snapshot-output';

/** The environment snapshot a write or recall used, and where it came from. */
export interface SnapshotUse {
  readonly source: SnapshotOutput['source'];
  readonly env: EnvSnapshot;
  readonly notes: readonly string[];
}

/** What an answer says of the snapshot it used: its source, its number of keys, the providers' notes. */
export const snapshotOutput = (snapshot: SnapshotUse): SnapshotOutput => ({
  source: snapshot.source,
  keys: Object.keys(snapshot.env).length,
  notes: [...snapshot.notes],
});
