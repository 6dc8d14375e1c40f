import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import {
  type HeadState,
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
