/**
 * The lineages a tampering matrix attacks, sealed once per file on the deployed stack (in process,
 * with its table and KMS keys), and the readers' setup. Shared by test/integration/tamper/*.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { DynamoDBLineageStore } from '../../../adapters/dynamodb-lineage-store';
import { clientConfig } from '../../../scripts/emulator/deploy';
import { HeadLayout } from '../../../shared/ports/head-layout';
import { buildManifest } from '../../../shared/triage/build-manifest';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { deployedStack } from '../../helpers/deployed-stack';
import { acceptedWrite, coldSealer, type SealingSetup, sealGroup } from '../../helpers/emulator-lineages';
import type { Reader, ReaderSetup, TrustedState } from '../../helpers/tamper-readers';
import type { AttackContext, Snapshot } from '../../helpers/tamper-table';
import { partitionsOf, TableWriter } from '../../helpers/tamper-table';
import { testLineageId } from '../../helpers/writer-factories';

// The in-process CLI's KMS and DynamoDB clients resolve credentials through the SDK's default chain
// (this process's environment), as the real CLI does; the emulator accepts any.
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';

/** The environment the records are sealed in and recalled in (no drift: an intact recall exits 0). */
export const ENV = { ARCH: 'arm64', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
export const MANIFEST = buildManifest({
  env: ENV,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-region': ['REGION'] },
});

/** The deployed stack, SDK clients on it, the table writer and the readers' setup. */
export function emulatorSetup(): SealingSetup &
  ReaderSetup & { readonly table: TableWriter; readonly store: DynamoDBLineageStore } {
  const { stack, endpoint, dynamodb, kms, store } = deployedStack();
  return {
    stack,
    endpoint,
    region: clientConfig(endpoint).region,
    dynamodb,
    kms,
    currentEnv: ENV,
    table: new TableWriter(dynamodb, stack.TableName),
    store,
  };
}

/**
 * The sealer the matrix attacks lineages of: a cold sealer ({@link coldSealer}) that still signs a
 * lineage checkpoint per run, as the sealer did before docs/deployment-log.md, "What changes for
 * the sealer", step 3. Its heads are the ones readers keep reading after the migration (a signed
 * checkpoint beside the head-state MAC), and the matrix's trusted state is such a checkpoint.
 */
export function tamperSealer(
  setup: SealingSetup,
  options: Omit<Parameters<typeof coldSealer>[1] & object, 'signLineageCheckpoints'> = {},
): ReturnType<typeof coldSealer> {
  // The compatible head: a small head carries no signed checkpoint (docs/sealing.md, "Migration").
  return coldSealer(setup, { ...options, signLineageCheckpoints: true, headLayout: HeadLayout.COMPATIBLE });
}

/** A lineage sealed write by write in groups, with snapshots after each group and its writes. */
export interface SealedLineage {
  readonly lineageId: string;
  /** Every write sealed, in seq order. */
  readonly writes: readonly ResidualWriteRequest[];
  /** Snapshots of its partitions after `n` records, by `"<n> records"`. */
  readonly earlier: ReadonlyMap<string, Snapshot>;
  /** Its final head as a reader trusts it. */
  readonly trusted: TrustedState;
}

/**
 * Seals one lineage of `groups` (record counts per FIFO group, e.g. `[2, 1, 2]`) with one sealer,
 * snapshotting it after each group. `writeOf` makes each write (default {@link acceptedWrite} with {@link MANIFEST}).
 */
export async function sealLineage(
  setup: ReturnType<typeof emulatorSetup>,
  prefix: string,
  groups: readonly number[],
  writeOf: (lineageId: string, residualId: string, nowMs: number) => ResidualWriteRequest = (l, r, nowMs) =>
    acceptedWrite(l, r, MANIFEST, nowMs),
  options: { readonly macOnly?: boolean } = {},
): Promise<SealedLineage> {
  const lineageId = testLineageId(`${prefix}-${randomUUID()}`);
  // MAC-only: as the deployed sealer seals (the small head, its head-key MAC under the stack's
  // notice key, no signed lineage checkpoint).
  const sealer = options.macOnly
    ? coldSealer(setup, { signLineageCheckpoints: false, headKeyMacs: true })
    : tamperSealer(setup);
  const writes: ResidualWriteRequest[] = [];
  const earlier = new Map<string, Snapshot>();
  for (const size of groups) {
    const nowMs = Date.now();
    const group = Array.from({ length: size }, (_, i) => writeOf(lineageId, `r-${writes.length + i}`, nowMs));
    expect(await sealGroup(sealer, group, nowMs)).toEqual(group.map(() => 'SEALED'));
    writes.push(...group);
    earlier.set(`${writes.length} records`, await setup.table.snapshot(partitionsOf(lineageId)));
  }
  const head = await setup.store.head(lineageId);
  const log = await setup.store.logHead(lineageId);
  if (!head) throw new Error(`lineage ${lineageId} has no head`);
  // A MAC-only head carries no signed note: only readers that take no trusted checkpoint read it.
  if (options.macOnly)
    return { lineageId, writes, earlier, trusted: { note: '', seq: head.seq, recordHash: head.recordHash } };
  if (!log?.checkpoint) throw new Error(`lineage ${lineageId} has no signed head`);
  return { lineageId, writes, earlier, trusted: { note: log.checkpoint, seq: head.seq, recordHash: head.recordHash } };
}

/**
 * The sealer's next append to the attacked lineage (a cold sealer, one new write): what the sealer
 * makes of the state. `macOnly`: a sealer that signs no lineage checkpoint (the deployed one).
 */
export function nextAppend(setup: SealingSetup, lineageId: () => string, options: { macOnly?: boolean } = {}): Reader {
  return {
    name: options.macOnly ? 'sealer (next append, MAC-only heads)' : 'sealer (next append)',
    takesCheckpoint: false,
    exclusive: true,
    read: async () => {
      const nowMs = Date.now();
      const write = acceptedWrite(lineageId(), `r-next-${randomUUID()}`, MANIFEST, nowMs);
      const sealer = options.macOnly
        ? coldSealer(setup, { signLineageCheckpoints: false, headKeyMacs: true })
        : tamperSealer(setup);
      const [outcome] = await sealGroup(sealer, [write], nowMs);
      return outcome as string;
    },
  };
}

/** What an attack on `lineage` needs; `other` is the lineage a transplant writes into. */
export function attackContextOf(
  setup: ReturnType<typeof emulatorSetup>,
  lineage: SealedLineage,
  other: SealedLineage,
): AttackContext {
  return {
    table: setup.table,
    lineageId: lineage.lineageId,
    otherLineageId: other.lineageId,
    earlier: lineage.earlier,
  };
}
