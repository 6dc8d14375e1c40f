import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { headStateBatchMessage, MAX_HEAD_STATE_BATCH } from '../../../../shared/log/head-state-batch';
import {
  type HeadState,
  headStateDigest,
  headStateMessage,
  macHeadState,
  verifyHeadStateMac,
} from '../../../../shared/log/head-state-mac';
import { testAnchor } from '../../../helpers/seal-factories';
import vectors from '../../../vectors/head-state-mac.json';

const cases = vectors.cases as {
  name: string;
  state: HeadState;
  canonicalJson: string;
  messageHex: string;
  mac: string;
}[];
const batches = vectors.batches as {
  name: string;
  states: HeadState[];
  heads: string[];
  canonicalJson: string;
  messageHex: string;
  mac: string;
}[];

describe('head-state MAC (docs/verifiable-log.md, "Appending"; test/vectors/head-state-mac.json)', () => {
  it('the vectors recompute with plain node:crypto: SHA-256 of tag, NUL and the canonical state, then HMAC-SHA-256', () => {
    expect(vectors.tag).toBe(HashDomain.HEAD_STATE);
    for (const c of cases) {
      const message = createHash('sha256').update(`${vectors.tag}\0${c.canonicalJson}`, 'utf8').digest();
      expect(message.toString('hex'), c.name).toBe(c.messageHex);
      const mac = createHmac('sha256', Buffer.from(vectors.keyHex, 'hex')).update(message).digest('base64');
      expect(mac, c.name).toBe(c.mac);
    }
  });

  it('headStateMessage and macHeadState give the vectors; verifyHeadStateMac accepts them', async () => {
    const anchor = testAnchor({ keyId: vectors.keyId, key: Buffer.from(vectors.keyHex, 'hex') });
    for (const c of cases) {
      expect(Buffer.from(headStateMessage(c.state)).toString('hex'), c.name).toBe(c.messageHex);
      const signature = await macHeadState(c.state, anchor);
      expect(signature).toEqual({ keyId: vectors.keyId, algorithm: 'HMAC_SHA_256', mac: c.mac });
      expect(await verifyHeadStateMac(c.state, signature, anchor)).toBe(true);
    }
  });

  it('a MAC of any other head state, another key, or a malformed stored MAC does not verify', async () => {
    const anchor = testAnchor({ keyId: vectors.keyId, key: Buffer.from(vectors.keyHex, 'hex') });
    const c = cases[0] as (typeof cases)[number];
    const stored = { keyId: vectors.keyId, algorithm: 'HMAC_SHA_256', mac: c.mac };
    const edits: Partial<HeadState>[] = [
      { treeSize: c.state.treeSize + 1 },
      { rootHash: '00'.repeat(32) },
      { headSeq: c.state.headSeq - 1 },
      { headRecordHash: '00'.repeat(32) },
      { generationEpoch: c.state.generationEpoch + 1 },
      { writerPolicyDigest: null },
      { lineageId: 'lineage-test-2' },
    ];
    for (const edit of edits) {
      expect(await verifyHeadStateMac({ ...c.state, ...edit }, stored, anchor), JSON.stringify(edit)).toBe(false);
    }
    expect(await verifyHeadStateMac(c.state, { ...stored, keyId: 'test-key-2' }, anchor)).toBe(false);
    expect(await verifyHeadStateMac(c.state, { ...stored, mac: 'not base64' }, anchor)).toBe(false);
    expect(await verifyHeadStateMac(c.state, null, anchor)).toBe(false);
    expect(await verifyHeadStateMac(c.state, JSON.stringify(stored), anchor)).toBe(false);
    const otherKey = testAnchor({ keyId: vectors.keyId, key: new Uint8Array(32).fill(9) });
    expect(await verifyHeadStateMac(c.state, stored, otherKey)).toBe(false);
  });
});

describe('batch head-state MAC: one MAC over the head states of a sealer invocation (docs/verifiable-log.md, "Appending")', () => {
  const key = Buffer.from(vectors.keyHex, 'hex');
  const anchor = () => testAnchor({ keyId: vectors.keyId, key });
  const batch = batches[2] as (typeof batches)[number];
  const stored = { keyId: vectors.keyId, algorithm: 'HMAC_SHA_256', mac: batch.mac, heads: batch.heads };

  it('the batch vectors recompute with plain node:crypto, and headStateBatchMessage gives them', () => {
    expect(vectors.batchTag).toBe(HashDomain.HEAD_STATE_BATCH);
    for (const b of batches) {
      const heads = b.states.map((state) =>
        createHash('sha256')
          .update(`${vectors.tag}\0${canonicalJson({ v: 1, ...state })}`, 'utf8')
          .digest('hex'),
      );
      expect([...new Set(heads)].sort(), b.name).toEqual(b.heads);
      expect(canonicalJson({ v: 1, heads: b.heads }), b.name).toBe(b.canonicalJson);
      const message = createHash('sha256').update(`${vectors.batchTag}\0${b.canonicalJson}`, 'utf8').digest();
      expect(message.toString('hex'), b.name).toBe(b.messageHex);
      expect(createHmac('sha256', key).update(message).digest('base64'), b.name).toBe(b.mac);
      expect(Buffer.from(headStateBatchMessage(b.heads)).toString('hex'), b.name).toBe(b.messageHex);
      expect(
        b.states.map(headStateDigest).every((d) => b.heads.includes(d)),
        b.name,
      ).toBe(true);
    }
  });

  it('verifies for every head state the batch names, and for no other', async () => {
    for (const b of batches) {
      const mac = { keyId: vectors.keyId, algorithm: 'HMAC_SHA_256', mac: b.mac, heads: b.heads };
      for (const state of b.states) expect(await verifyHeadStateMac(state, mac, anchor()), b.name).toBe(true);
    }
    const named = batch.states[0] as HeadState;
    expect(await verifyHeadStateMac({ ...named, treeSize: named.treeSize + 1 }, stored, anchor())).toBe(false);
    // Case 1's state is named by batch 2 but not by batch 1: batch 1's MAC does not vouch for it.
    const one = batches[1] as (typeof batches)[number];
    expect(one.heads).toHaveLength(1);
    const notNamed = (cases[1] as (typeof cases)[number]).state;
    expect(await verifyHeadStateMac(notNamed, { ...stored, mac: one.mac, heads: one.heads }, anchor())).toBe(false);
  });

  it('an edited heads list is refused: a digest swapped, added, removed, reordered, repeated, upper case, or too many', async () => {
    const state = batch.states[0] as HeadState;
    const own = headStateDigest(state);
    const others = batch.heads.filter((h) => h !== own);
    const edits: Record<string, unknown> = {
      swapped: [own, ...others.slice(1), 'ff'.repeat(32)].sort(),
      added: [...batch.heads, 'ff'.repeat(32)].sort(),
      removed: [own, ...others.slice(1)].sort(),
      'own removed': others,
      reordered: [...batch.heads].reverse(),
      repeated: [...batch.heads, own].sort(),
      'upper case': batch.heads.map((h) => h.toUpperCase()),
      empty: [],
      'not a list': batch.heads.join(''),
      null: null,
      'too many': [
        ...batch.heads,
        ...Array.from({ length: MAX_HEAD_STATE_BATCH }, (_, i) => i.toString(16).padStart(64, '0')),
      ].sort(),
    };
    for (const [name, heads] of Object.entries(edits)) {
      expect(await verifyHeadStateMac(state, { ...stored, heads }, anchor()), name).toBe(false);
    }
  });

  it('a heads list beside the single-form MAC of a state it names is refused; the batch MAC without its heads list too', async () => {
    const state = batch.states[0] as HeadState;
    const single = await macHeadState(state, anchor());
    expect(await verifyHeadStateMac(state, single, anchor())).toBe(true);
    expect(await verifyHeadStateMac(state, { ...single, heads: batch.heads }, anchor())).toBe(false);
    expect(await verifyHeadStateMac(state, { ...single, heads: [headStateDigest(state)] }, anchor())).toBe(false);
    const { heads: _, ...withoutHeads } = stored;
    expect(await verifyHeadStateMac(state, withoutHeads, anchor())).toBe(false);
  });

  it("domain separation: a batch of one is never its state's own message, nor 32 bytes a record MAC is taken over", () => {
    const state = (cases[0] as (typeof cases)[number]).state;
    const single = headStateMessage(state);
    const ofOne = headStateBatchMessage([headStateDigest(state)]);
    expect(Buffer.from(ofOne).equals(Buffer.from(single))).toBe(false);
    expect(ofOne.byteLength).toBe(32);
    expect(() => headStateBatchMessage([])).toThrow(RangeError);
    expect(() => headStateBatchMessage(['b'.repeat(64), 'a'.repeat(64)])).toThrow(RangeError);
  });
});
