import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import {
  isNoticeMacValid,
  NOTICE_MAC_DOMAIN,
  noticeMacMessage,
  withNoticeAuth,
} from '../../../../shared/integrator/notice-mac';
import { parseSealedRunNotice, type SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';

const notice: SealedRunNotice = {
  v: 1,
  lineageId: 'lin-notice-mac',
  head: {
    treeSize: 2,
    rootHash: 'a'.repeat(64),
    headRecordHash: 'b'.repeat(64),
    generationEpoch: 0,
    writerPolicyDigest: null,
  },
  residuals: [{ residualId: 'r-1', seq: 1, recordHash: 'b'.repeat(64) }],
  sealedAtMs: 1_700_000_000_000,
};
const key = new Uint8Array(randomBytes(32));
const blob = randomBytes(40).toString('base64');

describe('a sealed-run notice MAC (docs/deployment-log.md, "Sealed-run notices")', () => {
  it('covers the domain tag and the canonical JSON of the notice without auth', () => {
    const text = new TextDecoder().decode(noticeMacMessage(withNoticeAuth(notice, key, blob)));
    expect(text.startsWith(NOTICE_MAC_DOMAIN)).toBe(true);
    expect(text).not.toContain('auth');
    expect(text).toContain('"lineageId":"lin-notice-mac"');
  });

  it('verifies under its data key, and parses strictly with its auth', () => {
    const authenticated = withNoticeAuth(notice, key, blob);
    expect(authenticated.auth?.key).toBe(blob);
    expect(authenticated.auth?.mac).toMatch(/^[0-9a-f]{64}$/);
    expect(isNoticeMacValid(parseSealedRunNotice(JSON.parse(JSON.stringify(authenticated))), key)).toBe(true);
  });

  it('does not verify: no auth, another data key, a key of another length, a changed field, a wrong mac', () => {
    const authenticated = withNoticeAuth(notice, key, blob);
    expect(isNoticeMacValid(notice, key)).toBe(false);
    expect(isNoticeMacValid(authenticated, new Uint8Array(randomBytes(32)))).toBe(false);
    expect(isNoticeMacValid(authenticated, key.subarray(0, 16))).toBe(false);
    expect(isNoticeMacValid({ ...authenticated, head: { ...notice.head, treeSize: 3 } }, key)).toBe(false);
    expect(isNoticeMacValid({ ...authenticated, sealedAtMs: notice.sealedAtMs + 1 }, key)).toBe(false);
    const mac = authenticated.auth?.mac ?? '';
    const flipped = (mac[0] === '0' ? '1' : '0') + mac.slice(1);
    expect(isNoticeMacValid({ ...authenticated, auth: { key: blob, mac: flipped } }, key)).toBe(false);
  });

  it('an auth whose sizes are out of bounds, or with another member, is a malformed notice', () => {
    const auth = withNoticeAuth(notice, key, blob).auth;
    for (const bad of [
      { ...auth, key: 'A'.repeat(1028) },
      { ...auth, mac: 'ab' },
      { ...auth, key: 'not base64!' },
      { ...auth, extra: 1 },
    ]) {
      expect(() => parseSealedRunNotice({ ...notice, auth: bad })).toThrow(InvalidInputError);
    }
  });
});
