import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LineageExport } from '../../../client/lineage-export';
import { lineageHeadOf } from '../../../shared/seal/lineage-head';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import {
  buildChain,
  cloneRecord,
  forgerAnchor,
  resealRecord,
  TEST_KEY_BYTES,
  TEST_LINEAGE_ID,
  TEST_NOW_MS,
  testAnchor,
} from '../../helpers/seal-factories';

/** Key id and bytes of the forger's own key (a new key in the same account, as `rekeyed.json` uses). */
export const FORGER_KEY_ID = 'arn:aws:kms:us-east-1:111122223333:key/forger-key';
export const FORGER_KEY_BYTES: Uint8Array = new Uint8Array(32).fill(0xa5);

/** The test key as `--local-key-hex` takes it. */
export const TEST_KEY_HEX = Buffer.from(TEST_KEY_BYTES).toString('hex');

function exportOf(records: SealedRecord[], head: LineageExport['head']): LineageExport {
  return { formatVersion: 1, lineageId: TEST_LINEAGE_ID, exportedAtMs: TEST_NOW_MS, head, records };
}

/**
 * Writes the lineage exports the verify/inspect golden tests read into `dir`: an intact chain of
 * four records sealed with the test key, and tampered copies of it. Deterministic (fixed key and clock).
 * Returns the intact chain's head for `--checkpoint`.
 */
export async function writeExportFixtures(dir: string): Promise<{ checkpoint: string }> {
  const { records, head } = await buildChain(4, {
    inputs: (i) => ({
      generationEpoch: 1 + Math.floor(i / 2),
      ...(i === 3 ? { authority: 'INFORMATIONAL_ONLY' } : {}),
    }),
  });
  if (!head) throw new Error('empty chain');
  const write = (name: string, value: unknown) => writeFile(join(dir, name), `${JSON.stringify(value, null, 2)}\n`);

  await write('intact.json', exportOf(records, head));
  // Payload edited after sealing, without re-sealing: the payload hash no longer matches.
  const edited = records.map((r) => cloneRecord(r));
  (edited[2] as { payload: unknown }).payload = { note: 'edited after sealing' };
  await write('payload-edited.json', exportOf(edited, head));
  // A record deleted from the middle: the next record's parent is missing.
  await write('record-deleted.json', exportOf([records[0], records[1], records[3]] as SealedRecord[], head));
  // The last record cut from the file and the head with it: only a kept checkpoint shows it.
  const cut = records.slice(0, 3);
  await write('tail-cut.json', exportOf(cut, null));
  // The last record re-signed by someone without the key (a payload-and-hash forgery).
  const forged = await resealRecord(records[3] as SealedRecord, { payload: { note: 'forged' } }, forgerAnchor());
  await write('forged.json', exportOf([...records.slice(0, 3), forged], null));
  // The whole lineage rewritten, re-chained and re-MACed under a key the forger created: sound
  // under its own key id, so only a key pinned by the verifier catches it.
  const rekeyed = await buildChain(4, {
    anchor: testAnchor({ keyId: FORGER_KEY_ID, key: FORGER_KEY_BYTES }),
    inputs: (i) => ({ generationEpoch: 1 + Math.floor(i / 2), payload: { conclusion: `forged ${i}`, index: i } }),
  });
  await write('rekeyed.json', exportOf(rekeyed.records, rekeyed.head));
  // The table's head rewound to seq 1 while records 2 and 3 remain (a rollback of the head only).
  await write('head-rewound.json', exportOf(records, lineageHeadOf(records[1] as SealedRecord)));
  // Records exported without the head that should name the last of them.
  await write('head-missing.json', exportOf(records, null));
  // Not an export at all: an unknown top-level field.
  await write('unknown-field.json', { ...exportOf(records, head), signedBy: 'me' });
  return { checkpoint: `${head.seq}:${head.recordHash}` };
}
