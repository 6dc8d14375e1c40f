import { describe, expect, it } from 'vitest';
import { headFrontierOf, headItem, logHeadOf } from '../../../adapters/head-item';
import { smallHeadItem } from '../../../adapters/small-head-item';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { macHeadState } from '../../../shared/log/head-state-mac';
import { claimedLogState, headStateOf } from '../../../shared/log/log-state';
import { HeadLayout } from '../../../shared/ports/head-layout';
import { lineageHeadOf } from '../../../shared/seal/lineage-head';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../helpers/seal-factories';
import { TEST_POLICY } from '../../helpers/writer-factories';

/** Bytes DynamoDB bills for an item: each attribute's name and value (numbers as text, an approximation). */
function itemBytes(item: Record<string, { S?: string; N?: string; B?: Uint8Array }>): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) =>
      sum + Buffer.byteLength(name) + (value.B?.byteLength ?? Buffer.byteLength(value.S ?? value.N ?? '')),
    0,
  );
}

describe('the small head item (docs/sealing.md, "The append\'s layout", "The write")', () => {
  it('stores seq, record hash, epoch, head-state MAC, a binary frontier and the policy; no tip header, anchor or checkpoint', async () => {
    const frontier = ['aa'.repeat(32), 'bb'.repeat(32)];
    const headMac = await testAnchor().generateMac(new Uint8Array(32));
    const tip = { seq: 6, recordHash: 'cc'.repeat(32), generationEpoch: 2 };
    const item = smallHeadItem({ lineageId: TEST_LINEAGE_ID, tip, headMac, frontier, policy: TEST_POLICY });
    expect(Object.keys(item).sort()).toEqual(
      ['frontier', 'generationEpoch', 'headMac', 'pk', 'policy', 'recordHash', 'seq', 'sk'].sort(),
    );
    expect(item.frontier?.B?.byteLength).toBe(64);
    expect(item.headMac?.S).toBe(canonicalJson(headMac));
    expect(headFrontierOf(item)).toEqual(frontier);
    const read = logHeadOf(TEST_LINEAGE_ID, item);
    expect(read).toMatchObject({ header: null, checkpoint: null, frontier, policy: TEST_POLICY, headMac });
    expect(read?.head).toEqual({ lineageId: TEST_LINEAGE_ID, ...tip, mac: '', keyId: '' });
    const legacy = smallHeadItem({ lineageId: TEST_LINEAGE_ID, tip, headMac, frontier, policy: null });
    expect(legacy.policy).toBeUndefined();
  });

  it('is about half a KB, one WCU, against the head item it replaces', async () => {
    const { records } = await buildChain(2);
    const last = records[1] as (typeof records)[0];
    const anchor = testAnchor();
    const frontier = Array.from({ length: 9 }, (_, i) => String(i).repeat(64));
    const legacy = headItem(
      {
        lineageId: TEST_LINEAGE_ID,
        entries: [{ record: last, nodes: [] }],
        expectedHead: lineageHeadOf(records[0] as (typeof records)[0]),
        headMac: await anchor.generateMac(new Uint8Array(32)),
        frontier,
        policy: TEST_POLICY,
      },
      last,
      HeadLayout.COMPATIBLE,
    );
    const small = smallHeadItem({
      lineageId: TEST_LINEAGE_ID,
      tip: lineageHeadOf(last),
      headMac: await anchor.generateMac(new Uint8Array(32)),
      frontier,
      policy: TEST_POLICY,
    });
    expect(itemBytes(small)).toBeLessThan(1024);
    expect(itemBytes(small)).toBeLessThan(itemBytes(legacy) / 2);
  });

  it('a batch head-state MAC stores its heads binary (32 bytes a head): with 10 heads, a KMS key ARN and a frontier of 6 hashes, still one WCU; read back as stored', async () => {
    const { records } = await buildChain(2);
    const last = records[1] as (typeof records)[0];
    // 32 bytes a head (and 12 of attribute name): a frontier of 7 hashes or more beside 10 heads takes the item past 1 KB (docs/sealing.md).
    const frontier = Array.from({ length: 6 }, (_, i) => String(i).repeat(64));
    const heads = Array.from({ length: 10 }, (_, i) => i.toString(16).repeat(64)).sort();
    const signature = await testAnchor().generateMac(new Uint8Array(32));
    const headMac = {
      ...signature,
      keyId: 'arn:aws:kms:us-east-1:000000000000:key/0f2c3a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      heads,
    };
    const item = smallHeadItem({
      lineageId: TEST_LINEAGE_ID,
      tip: lineageHeadOf(last),
      headMac,
      frontier,
      policy: TEST_POLICY,
    });
    expect(item.headMacHeads?.B?.byteLength).toBe(320);
    expect(JSON.parse(item.headMac?.S ?? '')).not.toHaveProperty('heads');
    expect(itemBytes(item)).toBeLessThan(1024);
    expect(logHeadOf(TEST_LINEAGE_ID, item)?.headMac).toEqual(headMac);
    // The compatible head stores it alike; a single-form MAC has no `headMacHeads`.
    const batch = { lineageId: TEST_LINEAGE_ID, entries: [{ record: last, nodes: [] }], expectedHead: null, frontier };
    const compatible = headItem({ ...batch, headMac }, last, HeadLayout.COMPATIBLE);
    expect(logHeadOf(TEST_LINEAGE_ID, compatible)?.headMac).toEqual(headMac);
    expect(headItem({ ...batch, headMac: signature }, last, HeadLayout.SMALL).headMacHeads).toBeUndefined();
    // A heads attribute that is not a whole number of digests reads as `heads: null` (never verifies).
    const cut = { ...item, headMacHeads: { B: new Uint8Array(33) } };
    expect(logHeadOf(TEST_LINEAGE_ID, cut)?.headMac).toEqual({ ...headMac, heads: null });
    // One stored form: the list inside the headMac JSON (no headMacHeads, or beside it) is no
    // second spelling of the batch; it reads as `heads: null` (never verifies).
    const { headMacHeads: _, ...noBinary } = item;
    const inJson = { ...noBinary, headMac: { S: canonicalJson(headMac) } };
    expect(logHeadOf(TEST_LINEAGE_ID, inJson)?.headMac).toEqual({ ...headMac, heads: null });
    const both = { ...item, headMac: { S: canonicalJson(headMac) } };
    expect(logHeadOf(TEST_LINEAGE_ID, both)?.headMac).toEqual({ ...headMac, heads: null });
  });

  it('a head-key MAC stores headKeyMac (32 bytes) and headDataKey (the wrapped key), binary, no headMac: with a frontier of 9 hashes and a KMS-sized blob, still one WCU, less than with a batch MAC of 10 heads; read back as stored', async () => {
    const { records } = await buildChain(2);
    const last = records[1] as (typeof records)[0];
    const keyBlob = Buffer.alloc(184, 7).toString('base64'); // a KMS CiphertextBlob of an AES_256 data key
    const headMac = { mac: new Uint8Array(32).fill(9), keyBlob };
    const item = (frontierSize: number) =>
      smallHeadItem({
        lineageId: TEST_LINEAGE_ID,
        tip: lineageHeadOf(last),
        headMac,
        frontier: Array.from({ length: frontierSize }, (_, i) => String(i).repeat(64)),
        policy: TEST_POLICY,
      });
    const six = item(6);
    expect(Object.keys(six)).not.toContain('headMac');
    expect(six.headKeyMac?.B?.byteLength).toBe(32);
    expect(Buffer.from(six.headDataKey?.B ?? new Uint8Array()).toString('base64')).toBe(keyBlob);
    // Measured: 735 bytes with 6 hashes, 831 with 9 (a batch MAC of 10 heads, a key ARN and 6 hashes: 1004).
    expect(itemBytes(six)).toBeLessThan(800);
    expect(itemBytes(item(9))).toBeLessThan(1024);
    const read = logHeadOf(TEST_LINEAGE_ID, six);
    expect(read?.headMac).toBeNull();
    expect(read?.headKeyMac).toEqual({ mac: Buffer.from(headMac.mac), keyBlob });
    // The compatible layout stores it alike.
    const batch = {
      lineageId: TEST_LINEAGE_ID,
      entries: [{ record: last, nodes: [] }],
      expectedHead: null,
      frontier: [],
    };
    expect(
      logHeadOf(TEST_LINEAGE_ID, headItem({ ...batch, headMac }, last, HeadLayout.COMPATIBLE))?.headKeyMac,
    ).toEqual({ mac: Buffer.from(headMac.mac), keyBlob });
    // Only two binaries, the MAC 32 bytes and the blob not empty, read as a head-key MAC.
    const { headKeyMac: _, ...noMac } = six;
    expect(logHeadOf(TEST_LINEAGE_ID, noMac)?.headKeyMac).toBeNull();
    expect(logHeadOf(TEST_LINEAGE_ID, { ...six, headKeyMac: { B: new Uint8Array(31) } })?.headKeyMac).toBeNull();
    expect(logHeadOf(TEST_LINEAGE_ID, { ...six, headDataKey: { B: new Uint8Array(0) } })?.headKeyMac).toBeNull();
    expect(logHeadOf(TEST_LINEAGE_ID, { ...six, headDataKey: { S: keyBlob } })?.headKeyMac).toBeNull();
  });

  it('reads back through the codec as the state the legacy head item of the same tree claims', async () => {
    const { records } = await buildChain(4);
    const last = records[3] as (typeof records)[0];
    const frontier = ['11'.repeat(32), '22'.repeat(32)]; // 3 leaves: a subtree of 2 and one of 1
    const batch = {
      lineageId: TEST_LINEAGE_ID,
      entries: [{ record: last, nodes: [] }],
      expectedHead: lineageHeadOf(records[2] as (typeof records)[0]),
      headMac: null,
      frontier,
    };
    const legacy = logHeadOf(TEST_LINEAGE_ID, headItem(batch, last, HeadLayout.COMPATIBLE));
    if (legacy === null) throw new Error('no head');
    const state = claimedLogState(legacy, TEST_LINEAGE_ID);
    const headMac = await macHeadState(headStateOf(state) as NonNullable<ReturnType<typeof headStateOf>>, testAnchor());
    const small = logHeadOf(
      TEST_LINEAGE_ID,
      smallHeadItem({ lineageId: TEST_LINEAGE_ID, tip: lineageHeadOf(last), headMac, frontier, policy: null }),
    );
    if (small === null) throw new Error('no head');
    // The small head stores no seal time: the tip's `sealedAtMs` is the header's alone.
    const { sealedAtMs: _, ...tip } = state.tip ?? {};
    expect(claimedLogState(small, TEST_LINEAGE_ID)).toEqual({ ...state, tip });
  });
});

describe('headFrontierOf: binary or JSON hex, as recordNodesOf reads nodes (docs/sealing.md, "The append\'s layout")', () => {
  it('reads 32 bytes a hash, or a JSON list of strings; anything else is malformed', () => {
    const hashes = ['ab'.repeat(32), 'cd'.repeat(32)];
    expect(headFrontierOf({ frontier: { B: Buffer.from(hashes.join(''), 'hex') } })).toEqual(hashes);
    expect(headFrontierOf({ frontier: { B: new Uint8Array(0) } })).toEqual([]);
    expect(headFrontierOf({ frontier: { S: JSON.stringify(hashes) } })).toEqual(hashes);
    expect(headFrontierOf({ frontier: { B: new Uint8Array(33) } })).toBeNull();
    expect(headFrontierOf({ frontier: { N: '1' } })).toBeNull();
    expect(headFrontierOf({})).toBeNull();
  });
});
