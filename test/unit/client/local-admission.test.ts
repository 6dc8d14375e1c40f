import { BatchGetItemCommand, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { itemOf } from '../../../adapters/item';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { smallHeadItem } from '../../../adapters/small-head-item';
import { clientLineageStore } from '../../../client/client-lineage-store';
import { type AdmissionReader, checkLocalAdmission } from '../../../client/local-admission';
import type { LineagePolicy } from '../../../shared/authorship/lineage-policy';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { InvalidInputError } from '../../../shared/errors';
import { subtreeRefs } from '../../../shared/log/subtree-refs';
import { type RecordHeader, recordHashOf } from '../../../shared/seal/record-header';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { answeringDynamoDB } from '../../helpers/answering-dynamodb';
import { validWriteRequest } from '../../helpers/guard-factories';
import type { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { testAnchor } from '../../helpers/seal-factories';
import { shrinkHead } from '../../helpers/small-head';
import {
  STRANGER_WRITER,
  signWriteSync,
  TEST_POLICY,
  TEST_RECOVERY,
  TEST_WRITER,
  testLineageId,
} from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-local-admission');
const NOT_ADMITTED = /is not admitted: the writer key is not admitted to this lineage/;

/** A write of the next record, signed by `signer`, carrying `policy` (none: a plain write). */
const write = (signer = TEST_WRITER, policy?: LineagePolicy): ResidualWriteRequest => {
  const { policy: _default, ...request } = validWriteRequest({ lineageId: LINEAGE, residualId: 'r-next' });
  return signWriteSync(policy ? { ...request, policy } : request, signer);
};

/** Whether the check lets `request` through (`true`) or refuses it (its message). */
async function verdict(store: AdmissionReader, request: ResidualWriteRequest): Promise<true | string> {
  try {
    await checkLocalAdmission(store, request);
    return true;
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return error.message;
  }
}

/** `store` read through a counter of its reads: head items and the ranges of records. */
function counted(store: AdmissionReader) {
  const reads = { heads: 0, ranges: [] as [number, number][] };
  const reader: AdmissionReader = {
    logHead: (...args) => {
      reads.heads++;
      return store.logHead(...args);
    },
    readChain: (lineageId, from, to, options) => {
      reads.ranges.push([from, to]);
      return store.readChain(lineageId, from, to, options);
    },
  };
  return { reader, reads };
}

/** `count` writes of the test writer sealed by the real sealer; the first `withPolicy` set the policy. */
async function sealedLineage(count: number, withPolicy = count): Promise<InMemoryLineageStore> {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < count; i++) {
    const outcome = await s.send({
      lineageId: LINEAGE,
      residualId: `r-${i}`,
      ...(i < withPolicy ? {} : { policy: undefined }),
    });
    expect(outcome.kind).toBe('SEALED');
  }
  return s.store;
}

/** The head item as stored before heads carried the policy: the tip header beside no policy. */
function withoutHeadPolicy(store: InMemoryLineageStore): void {
  store.setLogHead(LINEAGE, (log) => ({ ...log, policy: null }));
}

const STRANGER_ROTATION = {
  ...TEST_POLICY,
  writers: [{ keyId: STRANGER_WRITER.keyId, publicKey: STRANGER_WRITER.publicKey }],
};

describe('checkLocalAdmission: the head item alone (docs/authorship.md, "Two refusals, in order")', () => {
  it('a lineage of 1,000 records: one strong GetItem of the head item, no Query and no record item, small or compatible head', async () => {
    const stored = await sealedLineage(1);
    const header = (await stored.logHead(LINEAGE))?.header as RecordHeader;
    const seq = 999;
    const frontier = Array.from({ length: subtreeRefs(0, seq).length }, (_, i) => i.toString(16).padStart(64, '0'));
    const tipHeader = { ...header, monotonicSequenceNumber: seq };
    const recordHash = recordHashOf(tipHeader);
    const small = smallHeadItem({
      lineageId: LINEAGE,
      tip: { seq, recordHash, generationEpoch: header.generationEpoch },
      headMac: await testAnchor().generateMac(new Uint8Array(32)),
      frontier,
      policy: TEST_POLICY,
    });
    const compatible = itemOf({
      pk: LineageKeys.lineage(LINEAGE),
      sk: LineageKeys.head,
      seq,
      recordHash,
      generationEpoch: header.generationEpoch,
      mac: 'mac',
      keyId: header.keyId,
      residualId: header.residualId,
      header: canonicalJson(tipHeader),
      frontier: JSON.stringify(frontier),
      policy: canonicalJson(TEST_POLICY),
    });
    for (const item of [small, compatible]) {
      const calls: { name: string; consistent?: boolean }[] = [];
      const dynamodb = answeringDynamoDB((command) => {
        if (command instanceof GetItemCommand) {
          calls.push({ name: 'GetItem', consistent: command.input.ConsistentRead === true });
          return { Item: item };
        }
        if (command instanceof QueryCommand) {
          calls.push({ name: 'Query' });
          return { Items: [] };
        }
        if (command instanceof BatchGetItemCommand) calls.push({ name: 'BatchGetItem' });
        else calls.push({ name: (command as object).constructor.name });
        return {};
      });
      const store = clientLineageStore(dynamodb, 'lineages');
      expect(await verdict(store, write())).toBe(true);
      expect(await verdict(store, write(STRANGER_WRITER))).toMatch(NOT_ADMITTED);
      expect(calls).toEqual([
        { name: 'GetItem', consistent: true },
        { name: 'GetItem', consistent: true },
      ]);
    }
  });

  it('admitted and refused as before, on a compatible and on a small head, reading no record', async () => {
    const store = await sealedLineage(3);
    for (const layout of ['compatible', 'small']) {
      if (layout === 'small') await shrinkHead(store, LINEAGE);
      const { reader, reads } = counted(store);
      expect(await verdict(reader, write()), layout).toBe(true);
      expect(await verdict(reader, write(TEST_WRITER, TEST_POLICY)), layout).toBe(true);
      expect(await verdict(reader, write(TEST_RECOVERY, STRANGER_ROTATION)), layout).toBe(true);
      expect(await verdict(reader, write(STRANGER_WRITER)), layout).toMatch(NOT_ADMITTED);
      expect(await verdict(reader, write(TEST_WRITER, { ...TEST_POLICY, recoveryKeys: [] })), layout).toMatch(
        /a writer may not change the recovery keys/,
      );
      expect(reads, layout).toEqual({ heads: 5, ranges: [] });
    }
  });

  it('no head item: the inception rules, no record read', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    const { reader, reads } = counted(s.store);
    expect(await verdict(reader, write(TEST_WRITER, TEST_POLICY))).toBe(true);
    expect(await verdict(reader, write())).toMatch(/must set its write policy/);
    // The refusal looked for a first record (none): the lineage does not exist.
    expect(reads).toEqual({ heads: 2, ranges: [[0, 0]] });
  });

  it('records but no head item (never put, deleted or made unreadable by a table writer): no inception refusal, the sealer decides', async () => {
    const store = await sealedLineage(3);
    const { reader, reads } = counted({ logHead: async () => null, readChain: (...a) => store.readChain(...a) });
    expect(await verdict(reader, write())).toBe(true);
    expect(await verdict(reader, write(STRANGER_WRITER))).toBe(true);
    expect(reads.ranges).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });

  it('a head whose tip header is format 1: refused as a legacy lineage, no record read', async () => {
    const store = await sealedLineage(2);
    const stored = (await store.logHead(LINEAGE)) ?? expect.fail('no head');
    const { writerDigest: _w, boundaryDigest: _b, policyDigest: _p, ...rest } = stored.header as RecordHeader;
    const legacy = { ...rest, formatVersion: 1 as const };
    store.setHead({ ...stored.head, recordHash: recordHashOf(legacy) });
    store.setLogHead(LINEAGE, (log) => ({ ...log, header: legacy, policy: null }));
    const { reader, reads } = counted(store);
    expect(await verdict(reader, write())).toMatch(/is not admitted: the lineage ends in a format-1 record/);
    expect(reads).toEqual({ heads: 1, ranges: [] });
  });

  it("a head whose policy is not the one its header names (an edited item) passes: a table writer's policy refuses no one", async () => {
    const store = await sealedLineage(2);
    store.setLogHead(LINEAGE, (log) => ({ ...log, policy: STRANGER_ROTATION }));
    const { reader, reads } = counted(store);
    expect(await verdict(reader, write())).toBe(true);
    expect(await verdict(reader, write(STRANGER_WRITER))).toBe(true);
    expect(reads).toEqual({ heads: 2, ranges: [] });
  });

  it('a head stored before heads carried the policy: the records read back newest first, until one sets a policy', async () => {
    const recent = await sealedLineage(12);
    withoutHeadPolicy(recent);
    const { reader, reads } = counted(recent);
    expect(await verdict(reader, write())).toBe(true);
    expect(await verdict(reader, write(STRANGER_WRITER))).toMatch(NOT_ADMITTED);
    // The tip sets the policy: the first page alone.
    expect(reads.ranges).toEqual([
      [4, 11],
      [4, 11],
    ]);

    const early = await sealedLineage(12, 1);
    withoutHeadPolicy(early);
    const far = counted(early);
    expect(await verdict(far.reader, write(STRANGER_WRITER))).toMatch(NOT_ADMITTED);
    expect(await verdict(far.reader, write(TEST_RECOVERY, STRANGER_ROTATION))).toBe(true);
    // Only the inception record sets it: pages of 8, then 16 (down to seq 0).
    expect(far.reads.ranges).toEqual([
      [4, 11],
      [0, 3],
      [4, 11],
      [0, 3],
    ]);
  });

  it('a small head without a policy (a format-1 tip, or a deleted attribute): the records decide, as before', async () => {
    const store = await sealedLineage(3);
    await shrinkHead(store, LINEAGE);
    withoutHeadPolicy(store);
    const { reader, reads } = counted(store);
    expect(await verdict(reader, write())).toBe(true);
    expect(await verdict(reader, write(STRANGER_WRITER))).toMatch(NOT_ADMITTED);
    expect(reads.ranges).toEqual([
      [0, 2],
      [0, 2],
    ]);
  });

  it('a fallback whose newest policy is not the one the tip names passes (an edited record), as before', async () => {
    const store = await sealedLineage(3);
    withoutHeadPolicy(store);
    store.tamperRecord(LINEAGE, 2, (record) => {
      record.policy = STRANGER_ROTATION;
    });
    expect(await verdict(store, write(STRANGER_WRITER))).toBe(true);
  });
});
