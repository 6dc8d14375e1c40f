import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { noticeMacMessage } from '../../../../shared/integrator/notice-mac';
import { headKeyMac, headKeyMessage, isHeadKeyMacValid } from '../../../../shared/log/head-key-mac';
import { headStateBatchMessage } from '../../../../shared/log/head-state-batch';
import { type HeadState, headStateDigest, headStateMessage } from '../../../../shared/log/head-state-mac';
import vectors from '../../../vectors/head-key-mac.json';

const cases = vectors.cases as {
  name: string;
  state: HeadState;
  canonicalJson: string;
  messageHex: string;
  macHex: string;
  headStateMessageHex: string;
}[];
const dataKey = Buffer.from(vectors.dataKeyHex, 'hex');
const first = cases[0] as (typeof cases)[number];

describe('head-key MAC (docs/verifiable-log.md, "Appending"; test/vectors/head-key-mac.json)', () => {
  it('the vectors recompute with plain node:crypto: SHA-256 of tag, NUL and the canonical state, then HMAC-SHA-256 under the data key', () => {
    expect(vectors.tag).toBe(HashDomain.HEAD_STATE_KEY);
    for (const c of cases) {
      const message = createHash('sha256').update(`${vectors.tag}\0${c.canonicalJson}`, 'utf8').digest();
      expect(message.toString('hex'), c.name).toBe(c.messageHex);
      expect(createHmac('sha256', dataKey).update(message).digest('hex'), c.name).toBe(c.macHex);
    }
  });

  it('headKeyMessage and headKeyMac give the vectors; isHeadKeyMacValid accepts them', () => {
    for (const c of cases) {
      expect(Buffer.from(headKeyMessage(c.state)).toString('hex'), c.name).toBe(c.messageHex);
      expect(Buffer.from(headKeyMac(c.state, dataKey)).toString('hex'), c.name).toBe(c.macHex);
      expect(isHeadKeyMacValid(c.state, dataKey, Buffer.from(c.macHex, 'hex')), c.name).toBe(true);
    }
  });

  it('its message is never the KMS head-state message, a batch message, or a notice message', () => {
    for (const c of cases) {
      const message = Buffer.from(headKeyMessage(c.state));
      expect(message.toString('hex')).not.toBe(c.headStateMessageHex);
      expect(message.equals(Buffer.from(headStateMessage(c.state)))).toBe(false);
      expect(message.equals(Buffer.from(headStateBatchMessage([headStateDigest(c.state)])))).toBe(false);
    }
    const notice = noticeMacMessage({ v: 1 } as never);
    expect(notice.byteLength).toBeGreaterThan(32);
  });

  it('a MAC of any other state, under another key, edited, truncated, or of a key of the wrong length does not verify', () => {
    const mac = Buffer.from(first.macHex, 'hex');
    const edits: Partial<HeadState>[] = [
      { lineageId: `${first.state.lineageId}x` },
      { treeSize: first.state.treeSize + 1 },
      { rootHash: '00'.repeat(32) },
      { headSeq: first.state.headSeq - 1 },
      { headRecordHash: '11'.repeat(32) },
      { generationEpoch: first.state.generationEpoch + 1 },
      { writerPolicyDigest: null },
    ];
    for (const edit of edits) {
      expect(isHeadKeyMacValid({ ...first.state, ...edit }, dataKey, mac), JSON.stringify(edit)).toBe(false);
    }
    const otherKey = Buffer.alloc(32, 7);
    expect(isHeadKeyMacValid(first.state, otherKey, mac)).toBe(false);
    const flipped = Buffer.from(mac);
    flipped[0] = (flipped[0] as number) ^ 1;
    expect(isHeadKeyMacValid(first.state, dataKey, flipped)).toBe(false);
    expect(isHeadKeyMacValid(first.state, dataKey, mac.subarray(0, 31))).toBe(false);
    expect(isHeadKeyMacValid(first.state, dataKey, Buffer.alloc(0))).toBe(false);
    expect(isHeadKeyMacValid(first.state, dataKey.subarray(0, 16), mac)).toBe(false);
    expect(() => headKeyMac(first.state, dataKey.subarray(0, 16))).toThrow(RangeError);
  });
});
