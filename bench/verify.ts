/**
 * Benchmark: chain verification against its floor (see bench/floors.ts).
 *
 * {@link verifyChain} of one lineage of 10,000 records (1 KiB payloads, a small manifest, one
 * variable) with a {@link LocalHmacAnchor}: per record the schema, payload / manifest / variables
 * hashes, the header's canonical bytes and hash, the links, and the MAC. Reported per record.
 *
 * Run: `npx tsx bench/verify.ts`.
 */
import { pathToFileURL } from 'node:url';
import { Authority } from '../shared/schemas/authority';
import { lineageHeadOf } from '../shared/seal/lineage-head';
import { sealRecord } from '../shared/seal/seal-record';
import type { SealedRecord } from '../shared/seal/sealed-record';
import { verifyChain } from '../shared/seal/verify-chain';
import { buildManifest } from '../shared/triage/build-manifest';
import { type FloorRecord, libraryCanonical, verifyFloor } from './floors';
import { interleavedSamples } from './harness';
import { type Figure, figureRow } from './report';
import { BENCH_KEY, benchAnchor, payloadOf } from './seal';

const RECORDS = 10_000;
const LINEAGE = 'bench-lineage';
const NOW_MS = Date.UTC(2026, 9, 26);

/** Seals `count` records of one lineage (1 KiB payloads), each on the previous one's head; also the log bench's lineage. */
export async function chainOf(count: number): Promise<SealedRecord[]> {
  const anchor = benchAnchor();
  const manifest = buildManifest({
    env: { ARCH: 'arm64', REGION: 'eu-west-1', NODE: '20' },
    structuralKeys: ['ARCH'],
    claimDependencyMap: { 'claim-1': ['REGION'] },
  });
  const payload = payloadOf(1_024);
  const records: SealedRecord[] = [];
  let head = null;
  for (let i = 0; i < count; i++) {
    const record = await sealRecord(
      {
        lineageId: LINEAGE,
        residualId: `residual-${i}`,
        sessionId: 'session-0',
        payload,
        generationEpoch: 1,
        authority: Authority.OPERATIONAL,
        manifest,
        verdictDigest: 'a'.repeat(64),
        variablesUsed: [{ name: 'TASK', value: `task-${i}`, freshness: 'FRESH_GENERATED', sourceEpoch: 1 }],
      },
      head,
      anchor,
      NOW_MS + i,
    );
    records.push(record);
    head = lineageHeadOf(record);
  }
  return records;
}

/** Verification of a 10,000-record chain, per record, against its floor and the library baseline. */
export async function runVerifyBench(): Promise<string> {
  const records = await chainOf(RECORDS);
  const anchor = benchAnchor();
  const verify = async () => {
    const result = await verifyChain(records, { lineageId: LINEAGE, anchor });
    if (result.verdict !== 'VERIFIED_INTACT') throw new Error(`bench chain did not verify: ${result.verdict}`);
  };
  const floorRecords: readonly FloorRecord[] = records;
  const samples = await interleavedSamples({
    measured: verify,
    floor: () => verifyFloor(floorRecords, BENCH_KEY),
    library: () => verifyFloor(floorRecords, BENCH_KEY, libraryCanonical),
  });
  const figure: Figure = {
    name: `chain verification per record, ${RECORDS.toLocaleString('en-US')} records`,
    unit: 'µs',
    scale: 1e3 / RECORDS,
    target: 1.5,
    samples,
  };
  return figureRow(figure);
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const { FIGURE_HEADER } = await import('./report');
  console.log([...FIGURE_HEADER, await runVerifyBench()].join('\n'));
}
