import { DetailType, EVENT_SOURCE } from './detail-type';
import { MAX_EVENT_ENTRY_BYTES } from './event-entry-bytes';
import { MAX_RESIDUAL_SEALED_RUNS, RESIDUAL_SEALED_VERSION, type ResidualSealedDetail } from './residual-sealed-detail';
import type { ResidualSealedRun } from './residual-sealed-run';

/**
 * The `ResidualSealed` details that carry `runs`, in order: one, unless its `PutEvents` entry
 * (`Source`, `DetailType` and the detail's JSON, UTF-8, as `eventEntryBytes` counts it) would pass
 * `maxEntryBytes`, or carry more than `maxRuns` runs; then the runs are cut into consecutive
 * details, each as full as fits (docs/pipeline.md, "Message shapes"). A run is never cut: one over
 * the bound on its own (it cannot be, `MAX_SEALED_RUN_RESIDUALS`) is a detail of its own, which
 * the bus then refuses.
 *
 * @param maxEntryBytes - the entry bound; default EventBridge's 256 KiB (`MAX_EVENT_ENTRY_BYTES`)
 * @param maxRuns - the most runs a detail carries; default the schema's `MAX_RESIDUAL_SEALED_RUNS`
 *   (one invocation of the sealer's batch never reaches it)
 * @returns no detail for no run
 */
export function residualSealedDetails(
  runs: readonly ResidualSealedRun[],
  maxEntryBytes: number = MAX_EVENT_ENTRY_BYTES,
  maxRuns: number = MAX_RESIDUAL_SEALED_RUNS,
): ResidualSealedDetail[] {
  // JSON.stringify of an array is `[` + its items joined by `,` + `]`: each run adds its own bytes
  // and a comma, so the entry's size is counted as runs are added, without re-serialising.
  const emptyBytes =
    Buffer.byteLength(EVENT_SOURCE, 'utf8') +
    Buffer.byteLength(DetailType.ResidualSealed, 'utf8') +
    Buffer.byteLength(JSON.stringify({ v: RESIDUAL_SEALED_VERSION, runs: [] }), 'utf8');
  const details: ResidualSealedDetail[] = [];
  let current: ResidualSealedRun[] = [];
  let bytes = emptyBytes;
  for (const run of runs) {
    const runBytes = Buffer.byteLength(JSON.stringify(run), 'utf8');
    const added = runBytes + (current.length > 0 ? 1 : 0);
    if (current.length > 0 && (bytes + added > maxEntryBytes || current.length >= maxRuns)) {
      details.push({ v: RESIDUAL_SEALED_VERSION, runs: current });
      current = [];
      bytes = emptyBytes;
    }
    bytes += runBytes + (current.length > 0 ? 1 : 0);
    current.push(run);
  }
  if (current.length > 0) details.push({ v: RESIDUAL_SEALED_VERSION, runs: current });
  return details;
}
