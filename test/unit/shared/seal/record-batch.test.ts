import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { itemOf } from '../../../../adapters/item';
import { macBatchBytes, macBatchOf } from '../../../../adapters/mac-batch';
import { readBinary } from '../../../../adapters/read-attribute';
import { recordItem, recordOf } from '../../../../adapters/record-item';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { emptyLogState } from '../../../../shared/log/log-state';
import { leafHash } from '../../../../shared/log/merkle-hash';
import { checkRecordsPastHead } from '../../../../shared/log/records-past-head';
import { isIntact } from '../../../../shared/seal/is-intact';
import { macFailures } from '../../../../shared/seal/mac-failures';
import { macRecords } from '../../../../shared/seal/mac-records';
import {
  RECORD_BATCH_SALT_BYTES,
  type RecordBatchPlace,
  randomRecordBatchSalt,
  recordBatchMessage,
  recordBatchOf,
  recordBatchRoot,
} from '../../../../shared/seal/record-batch';
import { headerBytes } from '../../../../shared/seal/record-header';
import { checkRecordIntegrity } from '../../../../shared/seal/record-integrity';
import { sealedRecordWithMac, type UnmacdRecord } from '../../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import { VerifyOnceMacAnchor } from '../../../../shared/seal/verify-once-mac-anchor';
import { recordMacMessage, verifyRecordMac } from '../../../../shared/seal/verify-record-mac';
import { refPath, refRoot } from '../../../helpers/merkle-reference';
import { buildChain, cloneRecord, TEST_LINEAGE_ID, testAnchor } from '../../../helpers/seal-factories';
import vectors from '../../../vectors/record-batch-mac.json';

const key = Buffer.from(vectors.keyHex, 'hex');
type Batch = (typeof vectors.batches)[number];

/** A chain of `length` records whose MAC is one batch MAC over all of them (as one sealer invocation makes it). */
async function batchedChain(length: number) {
  const { records, anchor } = await buildChain(length);
  const macs = await macRecords(
    records.map((record) => ({ recordHash: record.recordHash, message: headerBytes(record.header) })),
    anchor,
  );
  const batched = records.map(({ anchor: _single, ...record }, i) =>
    sealedRecordWithMac(record as UnmacdRecord, macs[i] as (typeof macs)[number]),
  );
  return { records: batched, anchor };
}

const MAC_REFUSED = 'HASH_MISMATCH: anchor invalid: tampered or forged';

/** The MAC-check findings of one record, as every walk makes them. */
async function findings(raw: unknown, anchor = testAnchor()) {
  const intact = checkRecordIntegrity(raw);
  if (!isIntact(intact)) return [intact.verdict];
  return (await macFailures([{ index: 0, record: intact.record, message: intact.message }], anchor, 1)).map(
    (f) => `${f.verdict}: ${f.reason}`,
  );
}

describe('record-batch MAC vectors (test/vectors/record-batch-mac.json)', () => {
  it('recompute with plain node:crypto and the reference tree: root, message, MAC, each path', () => {
    expect(vectors.tag).toBe(HashDomain.RECORD_BATCH);
    for (const batch of vectors.batches) {
      const leaves = batch.recordHashes.map((hash, i) =>
        Buffer.concat([Buffer.from(hash, 'hex'), Buffer.from(batch.salts[i] as string, 'hex')]),
      );
      expect(batch.salts.every((salt) => salt.length === 2 * RECORD_BATCH_SALT_BYTES)).toBe(true);
      const root = refRoot(leaves);
      expect(Buffer.from(root).toString('hex')).toBe(batch.rootHex);
      const size = Buffer.alloc(8);
      size.writeBigUInt64BE(BigInt(leaves.length));
      const message = createHash('sha256').update(`${vectors.tag}\0`, 'latin1').update(size).update(root).digest();
      expect(message.toString('hex')).toBe(batch.messageHex);
      expect(createHmac('sha256', key).update(message).digest('base64')).toBe(batch.mac);
      for (const [i, place] of batch.places.entries()) {
        expect(place).toMatchObject({ index: i, size: leaves.length, salt: batch.salts[i] });
        expect(place.path).toEqual(refPath(i, leaves).map((node) => Buffer.from(node).toString('hex')));
      }
    }
    expect(vectors.batches.map((b) => b.recordHashes.length)).toEqual([1, 3, 10]);
    expect(Math.max(...(vectors.batches[2] as Batch).places.map((p) => p.path.length))).toBe(4);
  });

  it('recordBatchOf, recordBatchMessage and recordBatchRoot give the vectors; the item attribute is storedHex', async () => {
    for (const batch of vectors.batches) {
      const { root, places } = await recordBatchOf(
        batch.recordHashes.map((recordHash, i) => ({ recordHash, salt: batch.salts[i] as string })),
      );
      expect(Buffer.from(recordBatchMessage(places.length, root)).toString('hex')).toBe(batch.messageHex);
      for (const [i, place] of places.entries()) {
        const { storedHex, ...expected } = batch.places[i] as Batch['places'][number];
        expect(place).toEqual(expected);
        expect(Buffer.from(recordBatchRoot(batch.recordHashes[i] as string, place) ?? []).toString('hex')).toBe(
          batch.rootHex,
        );
        expect(Buffer.from(macBatchBytes(place)).toString('hex')).toBe(storedHex);
        expect(macBatchOf(itemOf({ macBatch: Buffer.from(storedHex, 'hex') }))).toEqual(expected);
      }
    }
  });

  it('macRecords under the vector key: several records share the batch MAC; one record is the single form', async () => {
    const anchor = testAnchor({ key });
    const generateMac = vi.spyOn(anchor, 'generateMac');
    const batch = vectors.batches[2] as Batch;
    const macs = await macRecords(
      batch.recordHashes.map((recordHash) => ({ recordHash, message: Buffer.from('header bytes') })),
      anchor,
      (i) => batch.salts[i] as string,
    );
    expect(generateMac).toHaveBeenCalledTimes(1);
    expect(macs.map((m) => m.anchor.mac)).toEqual(batch.recordHashes.map(() => batch.mac));
    expect(macs.map((m) => m.macBatch)).toEqual(batch.places.map(({ storedHex: _, ...place }) => place));
    const [single] = await macRecords(
      [{ recordHash: batch.recordHashes[0] as string, message: Buffer.from('header') }],
      anchor,
    );
    expect(single).not.toHaveProperty('macBatch');
    expect(single?.anchor.mac).toBe(createHmac('sha256', key).update('header').digest('base64'));
  });

  it('by default each record of a batch gets fresh random salt bytes', async () => {
    const records = (vectors.batches[1] as Batch).recordHashes.map((recordHash) => ({
      recordHash,
      message: Buffer.from('h'),
    }));
    const salts = [...(await macRecords(records, testAnchor())), ...(await macRecords(records, testAnchor()))].map(
      (m) => m.macBatch?.salt,
    );
    expect(new Set(salts).size).toBe(6);
    expect(randomRecordBatchSalt()).toMatch(new RegExp(`^[0-9a-f]{${2 * RECORD_BATCH_SALT_BYTES}}$`));
  });
});

describe('a batch-MAC\'d record is checkable on its own (docs/sealing.md, "The record and its seal")', () => {
  it('each record of a batch of 3 verifies by its place and the batch MAC; one VerifyMac for the batch in a walk', async () => {
    const { records, anchor } = await batchedChain(3);
    expect(new Set(records.map((r) => r.anchor.mac)).size).toBe(1);
    for (const record of records) expect(await findings(cloneRecord(record), anchor)).toEqual([]);
    const once = new VerifyOnceMacAnchor(anchor);
    const verifyMac = vi.spyOn(anchor, 'verifyMac');
    const verification = await verifyChain(cloneRecord(records), { lineageId: TEST_LINEAGE_ID, anchor: once });
    expect(verification.verdict).toBe('VERIFIED_INTACT');
    expect(verifyMac).toHaveBeenCalledTimes(1);
  });

  it('an old single-form record still verifies', async () => {
    const { records, anchor } = await buildChain(1);
    expect(records[0]).not.toHaveProperty('macBatch');
    expect(await findings(cloneRecord(records[0]), anchor)).toEqual([]);
  });

  const MAC_FAILURE = 'HASH_MISMATCH: anchor invalid: tampered or forged';
  const tampers: [string, (record: SealedRecord, others: SealedRecord[]) => void][] = [
    [
      'a path hash edited',
      (r) => {
        (r.macBatch as RecordBatchPlace).path[0] = 'ab'.repeat(32);
      },
    ],
    [
      'the leaf index edited',
      (r) => {
        (r.macBatch as RecordBatchPlace).index = ((r.macBatch as RecordBatchPlace).index + 1) % 3;
      },
    ],
    [
      'the batch size edited',
      (r) => {
        (r.macBatch as RecordBatchPlace).size = 5;
      },
    ],
    // Leaf 0 has a path of 2 hashes in a batch of 3 and of 4: the fold gives the same root, and
    // only the size in the MAC'd message refuses the edit.
    [
      'the batch size edited, same path shape (leaf 0, size 3 to 4)',
      (r) => {
        expect(r.macBatch).toMatchObject({ index: 0, size: 3 });
        (r.macBatch as RecordBatchPlace).size = 4;
      },
    ],
    [
      'the batch fields moved from another record of the batch',
      (r, o) => {
        r.macBatch = cloneRecord((o[1] as SealedRecord).macBatch);
      },
    ],
    [
      'the batch fields stripped (claiming the single form)',
      (r) => {
        delete r.macBatch;
      },
    ],
    [
      'an index not below the size',
      (r) => {
        r.macBatch = { ...(r.macBatch as RecordBatchPlace), index: 3, size: 3 };
      },
    ],
    [
      'a path one hash too long',
      (r) => {
        (r.macBatch as RecordBatchPlace).path.push('cd'.repeat(32));
      },
    ],
    [
      'a path one hash short',
      (r) => {
        (r.macBatch as RecordBatchPlace).path.pop();
      },
    ],
    [
      'a path element that is not 32 bytes',
      (r) => {
        (r.macBatch as RecordBatchPlace).path[0] = 'ab'.repeat(31);
      },
    ],
    [
      'the salt edited',
      (r) => {
        const place = r.macBatch as RecordBatchPlace;
        place.salt = `${(place.salt as string).startsWith('00') ? '01' : '00'}${(place.salt as string).slice(2)}`;
      },
    ],
    [
      'the salt moved from another record of the batch',
      (r, o) => {
        (r.macBatch as RecordBatchPlace).salt = (o[1] as SealedRecord).macBatch?.salt as string;
      },
    ],
    [
      'the salt stripped',
      (r) => {
        delete (r.macBatch as RecordBatchPlace).salt;
      },
    ],
    [
      'a salt one byte short',
      (r) => {
        (r.macBatch as RecordBatchPlace).salt = (r.macBatch as RecordBatchPlace).salt?.slice(2);
      },
    ],
    [
      'a path longer than 32 hashes',
      (r) => {
        (r.macBatch as RecordBatchPlace).path = Array.from({ length: 33 }, () => 'cd'.repeat(32));
      },
    ],
    [
      'a path element that is not hex',
      (r) => {
        (r.macBatch as RecordBatchPlace).path[0] = 'zz'.repeat(32);
      },
    ],
  ];
  it.each(tampers)('%s: the MAC failure every reader reports, never an exception', async (_name, tamper) => {
    const { records, anchor } = await batchedChain(3);
    const record = cloneRecord(records[0] as SealedRecord);
    tamper(record, records);
    expect(await findings(record, anchor)).toEqual([MAC_FAILURE]);
    const verification = await verifyChain([record, ...cloneRecord(records.slice(1))], {
      lineageId: TEST_LINEAGE_ID,
      anchor,
    });
    expect(verification.verdict).toBe('HASH_MISMATCH');
    expect(verification.firstFailure?.seq).toBe(0);
  });

  it('a malformed place is refused without asking the anchor', async () => {
    const { records, anchor } = await batchedChain(3);
    const record = cloneRecord(records[1] as SealedRecord);
    record.macBatch = { index: 5, size: 3, salt: '00'.repeat(RECORD_BATCH_SALT_BYTES), path: [] };
    const verifyMac = vi.spyOn(anchor, 'verifyMac');
    expect(recordMacMessage(record, headerBytes(record.header))).toBeNull();
    expect(await verifyRecordMac(anchor, record, headerBytes(record.header))).toBe(false);
    expect(verifyMac).not.toHaveBeenCalled();
  });
});

describe('the record item stores the place binary, once (adapters/record-item.ts)', () => {
  it('round trip: the place leaves the JSON for the binary macBatch attribute and comes back', async () => {
    const { records } = await batchedChain(3);
    const record = records[2] as SealedRecord;
    const item = recordItem(TEST_LINEAGE_ID, { record, nodes: [] });
    expect(readBinary(item, 'macBatch')?.byteLength).toBe(
      8 + RECORD_BATCH_SALT_BYTES + 32 * (record.macBatch as RecordBatchPlace).path.length,
    );
    const { macBatch: _place, ...jsonOnly } = item;
    expect(recordOf(jsonOnly)).not.toHaveProperty('macBatch');
    const { manifest: _, ...stored } = record;
    expect(recordOf(item)).toEqual(cloneRecord(stored));
  });

  it('a place spelled inside the JSON, or a binary cut short, reads as a place no MAC check accepts', async () => {
    const { records, anchor } = await batchedChain(3);
    const record = records[0] as SealedRecord;
    const item = recordItem(TEST_LINEAGE_ID, { record, nodes: [] });
    const { macBatch, manifest: _, ...single } = record;
    const injected = recordOf(itemOf({ record: JSON.stringify({ ...single, macBatch }) }));
    expect((injected as SealedRecord).macBatch).toEqual({ index: 0, size: 0, salt: '', path: [] });
    const bytes = readBinary(item, 'macBatch') as Uint8Array;
    const short = recordOf({ ...item, ...itemOf({ macBatch: bytes.subarray(0, 20) }) }) as SealedRecord;
    expect(short.macBatch).toMatchObject({ salt: Buffer.from(bytes.subarray(8, 20)).toString('hex'), path: [] });
    const cut = recordOf({ ...item, ...itemOf({ macBatch: bytes.subarray(0, bytes.byteLength - 1) }) }) as SealedRecord;
    expect(cut.macBatch?.path.at(-1)).toHaveLength(62);
    for (const read of [injected, short, cut] as SealedRecord[]) {
      expect(await verifyRecordMac(anchor, { ...read, manifest: record.manifest }, headerBytes(record.header))).toBe(
        false,
      );
    }
  });
});

describe('a batch-mate that was MAC\'d but never stored cannot be rebuilt (docs/sealing.md, "The record and its seal")', () => {
  /**
   * A batch of two whose second record was never stored (its run threw after the batch fired): the
   * table writer holds the stored mate's item (its record, salt and path) and the lost record's
   * header fields, and builds the lost record a place from the mate's leaf, with the mate's MAC.
   */
  async function rebuiltMate() {
    const { records, anchor } = await batchedChain(2);
    const [stored, lost] = records as [SealedRecord, SealedRecord];
    const storedPlace = stored.macBatch as RecordBatchPlace;
    const lostPlace = lost.macBatch as RecordBatchPlace;
    // The mate's path is the lost record's leaf hash; the mate's own leaf is all the lost record's path needs.
    const mateLeaf = leafHash(
      Buffer.concat([Buffer.from(stored.recordHash, 'hex'), Buffer.from(storedPlace.salt as string, 'hex')]),
    );
    const rebuild = (salt: string | undefined): SealedRecord => {
      const { macBatch: _lostPlace, ...rest } = cloneRecord(lost);
      const place: RecordBatchPlace = { index: 1, size: 2, path: [Buffer.from(mateLeaf).toString('hex')] };
      return { ...rest, anchor: { ...stored.anchor }, macBatch: salt === undefined ? place : { ...place, salt } };
    };
    // Salts the writer can name: none, the mate's, zeros, a fresh guess. The lost salt was never written.
    const guesses = [undefined, storedPlace.salt, '00'.repeat(RECORD_BATCH_SALT_BYTES), randomRecordBatchSalt()];
    return { stored, anchor, rebuilt: guesses.map(rebuild), withLostSalt: rebuild(lostPlace.salt) };
  }

  it('verifyRecordMac refuses the rebuilt record for every salt the writer can name', async () => {
    const { anchor, rebuilt, withLostSalt } = await rebuiltMate();
    // The place is right but for the salt: only the salt, which only the lost item would hold, is missing.
    expect(await verifyRecordMac(anchor, withLostSalt, headerBytes(withLostSalt.header))).toBe(true);
    for (const record of rebuilt) {
      expect(await verifyRecordMac(anchor, record, headerBytes(record.header))).toBe(false);
      expect(await findings(cloneRecord(record), anchor)).toEqual([MAC_REFUSED]);
    }
  });

  it('the roll-forward refuses it past the stored mate, and never counts its residual id as sealed', async () => {
    const { stored, anchor, rebuilt } = await rebuiltMate();
    for (const record of rebuilt) {
      const checked = await checkRecordsPastHead(
        emptyLogState(TEST_LINEAGE_ID),
        [cloneRecord(stored), cloneRecord(record)],
        anchor,
      );
      expect('reason' in checked && checked.reason).toMatch(/MAC of the record stored at seq 1 does not verify/);
      expect('reason' in checked && [...checked.sealedResidualIds]).toEqual([stored.header.residualId]);
    }
  });
});
