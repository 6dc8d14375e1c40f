import { groupedCount } from '../schemas/grouped-count';

/**
 * Largest EventBridge `PutEvents` entry, in bytes (256 KiB): an AWS quota, not a Reseal choice.
 * A larger entry is refused by EventBridge itself, after the request was built and sent.
 */
export const MAX_EVENT_ENTRY_BYTES = 262_144;

/** The parts of a `PutEvents` entry that count toward its size (no `Time`, no `Resources`: Reseal sets neither). */
export interface EventEntryParts {
  readonly source: string;
  readonly detailType: string;
  /** The `Detail` text as sent (JSON). */
  readonly detail: string;
}

/**
 * Size of a `PutEvents` entry as EventBridge counts it ("Calculating PutEvents event entry size",
 * Amazon EventBridge User Guide): the UTF-8 bytes of `Source`, `DetailType` and `Detail` (plus 14
 * for a `Time` and each `Resources` entry, which Reseal's entries do not carry).
 */
export function eventEntryBytes(entry: EventEntryParts): number {
  return (
    Buffer.byteLength(entry.source, 'utf8') +
    Buffer.byteLength(entry.detailType, 'utf8') +
    Buffer.byteLength(entry.detail, 'utf8')
  );
}

/**
 * Why a `RecallRequested` entry cannot be sent (it is over {@link MAX_EVENT_ENTRY_BYTES}), or `null`.
 * The message names the limit, the size, how many current-environment keys made it, and what to
 * do instead (docs/cli.md, "Input limits"): triage that environment offline against the record's
 * manifest, where only the snapshot limits apply.
 */
export function recallEntrySizeIssue(entry: EventEntryParts, currentEnvKeys: number): string | null {
  const size = eventEntryBytes(entry);
  if (size <= MAX_EVENT_ENTRY_BYTES) return null;
  return (
    `the RecallRequested event would be ${groupedCount(size)} bytes (a current environment of ` +
    `${groupedCount(currentEnvKeys)} keys), more than EventBridge's PutEvents entry limit of ` +
    `${groupedCount(MAX_EVENT_ENTRY_BYTES)} bytes (MAX_EVENT_ENTRY_BYTES, docs/cli.md "Input limits"); ` +
    'nothing was sent: send a smaller environment, or triage this one offline against the ' +
    "record's manifest (reseal export, then reseal triage --manifest … --env …)"
  );
}
