import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { isNoticeMacValid, noticeMacMessage, withNoticeAuth } from '../../../../shared/integrator/notice-mac';
import { parseSealedRunNotice, type SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';

// Whoever may hand the integrator a notice but holds no right on the notice key (its invokers, the
// integration queue's `sqs:*`, the table writer) against the MAC (docs/deployment-log.md,
// "Sealed-run notices"): a genuine notice's `auth` moved onto any other notice never verifies.
const genuine: SealedRunNotice = {
  v: 1,
  lineageId: 'lin-notice-mac-attacks',
  head: {
    treeSize: 3,
    rootHash: 'a'.repeat(64),
    headRecordHash: 'b'.repeat(64),
    generationEpoch: 2,
    writerPolicyDigest: 'c'.repeat(64),
  },
  residuals: [
    { residualId: 'r-1', seq: 1, recordHash: 'd'.repeat(64) },
    { residualId: 'r-2', seq: 2, recordHash: 'b'.repeat(64) },
  ],
  sealedAtMs: 1_700_000_000_000,
};
const key = new Uint8Array(randomBytes(32));
const blob = randomBytes(184).toString('base64');
const authenticated = withNoticeAuth(genuine, key, blob);

/** Every notice one field away from the genuine one that still parses, by the field changed. */
const neighbours: [string, SealedRunNotice][] = [
  ['v', { ...genuine, v: 2 as 1 }],
  ['lineageId', { ...genuine, lineageId: 'lin-notice-mac-other' }],
  ['head.treeSize', { ...genuine, head: { ...genuine.head, treeSize: 4 } }],
  ['head.rootHash', { ...genuine, head: { ...genuine.head, rootHash: 'e'.repeat(64) } }],
  ['head.headRecordHash', { ...genuine, head: { ...genuine.head, headRecordHash: 'e'.repeat(64) } }],
  ['head.generationEpoch', { ...genuine, head: { ...genuine.head, generationEpoch: 3 } }],
  ['head.writerPolicyDigest', { ...genuine, head: { ...genuine.head, writerPolicyDigest: null } }],
  ['residuals: one dropped', { ...genuine, residuals: genuine.residuals.slice(0, 1) }],
  ['residuals: reordered', { ...genuine, residuals: [...genuine.residuals].reverse() }],
  ['residuals: one added', { ...genuine, residuals: [...genuine.residuals, { ...genuine.residuals[1], seq: 3 }] }],
  [
    'residuals[0].residualId',
    { ...genuine, residuals: [{ ...genuine.residuals[0], residualId: 'r-9' }, genuine.residuals[1]] },
  ],
  ['residuals[0].seq', { ...genuine, residuals: [{ ...genuine.residuals[0], seq: 0 }, genuine.residuals[1]] }],
  [
    'residuals[0].recordHash',
    { ...genuine, residuals: [{ ...genuine.residuals[0], recordHash: 'f'.repeat(64) }, genuine.residuals[1]] },
  ],
  ['sealedAtMs', { ...genuine, sealedAtMs: genuine.sealedAtMs + 1 }],
] as [string, SealedRunNotice][];

describe('a genuine auth moved onto another notice never verifies: the MAC covers every field', () => {
  it('the genuine notice verifies, as received from the queue', () => {
    expect(isNoticeMacValid(parseSealedRunNotice(JSON.parse(JSON.stringify(authenticated))), key)).toBe(true);
  });

  for (const [field, other] of neighbours) {
    it(`${field} changed, the genuine auth kept: does not verify`, () => {
      expect(isNoticeMacValid({ ...other, auth: authenticated.auth }, key)).toBe(false);
    });
  }

  it('no two of these notices share a MAC message (the canonical form is one text per notice)', () => {
    const texts = [genuine, ...neighbours.map(([, n]) => n)].map((n) => Buffer.from(noticeMacMessage(n)).toString());
    expect(new Set(texts).size).toBe(texts.length);
  });

  it('a member the schema does not know is refused before any MAC, and would be under the MAC anyway', () => {
    const extended = { ...authenticated, note: 'trust me' };
    expect(() => parseSealedRunNotice(JSON.parse(JSON.stringify(extended)))).toThrow(InvalidInputError);
    expect(isNoticeMacValid(extended as SealedRunNotice, key)).toBe(false);
  });

  it('the same notice with its members in another order verifies: its canonical text is the same', () => {
    const { auth, ...bare } = authenticated;
    const reordered = Object.fromEntries(Object.entries(bare).reverse());
    expect(isNoticeMacValid(parseSealedRunNotice({ ...reordered, auth }), key)).toBe(true);
  });

  it('a mac given in upper case, or of another length, is malformed, never compared', () => {
    const mac = authenticated.auth?.mac ?? '';
    for (const bad of [mac.toUpperCase(), mac.slice(0, 62), `${mac}00`]) {
      expect(() => parseSealedRunNotice({ ...genuine, auth: { key: blob, mac: bad } })).toThrow(InvalidInputError);
      expect(isNoticeMacValid({ ...genuine, auth: { key: blob, mac: bad.slice(0, 62) } }, key)).toBe(false);
    }
  });
});
