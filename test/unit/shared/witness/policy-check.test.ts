import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { formatSignedNote, parseSignedNote } from '../../../../shared/log/signed-note';
import { cosign } from '../../../../shared/witness/cosign';
import { formatCosignerKey } from '../../../../shared/witness/cosigner-key';
import { checkPolicy, PolicyRefusal } from '../../../../shared/witness/policy-check';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import { cosignedResponse } from '../../../../shared/witness/witness-response';
import { testNoteSigner, testNoteVerifierKey } from '../../../helpers/log-factories';
import {
  testCosignerKey,
  testDeploymentBody,
  testDeploymentCheckpoint,
  testPolicyText,
  testWitnessSigner,
} from '../../../helpers/witness-factories';

const NOW = 1_800_000_000;
const MAX_AGE = 600;
const seed = (n: number) => new Uint8Array(32).fill(n);

/** The size-5 checkpoint with a cosignature by each `[witness seed, timestamp]`. */
async function cosigned(stamps: readonly [number, number][], size = 5): Promise<string> {
  const body = testDeploymentBody(size);
  const sigs = await Promise.all(stamps.map(([s, t]) => cosign(body, t, testWitnessSigner(seed(s), `w${s}.example`))));
  return `${await testDeploymentCheckpoint(size)}${cosignedResponse(sigs).body}`;
}

async function twoOfThree(): Promise<string> {
  const keys = await Promise.all(
    [1, 2, 3].map(async (n) => formatCosignerKey(await testCosignerKey(seed(n), `w${n}.example`))),
  );
  return `log ${formatVerifierKey(await testNoteVerifierKey())}\n${keys.map((k, i) => `witness W${i + 1} ${k}\n`).join('')}group g 2 W1 W2 W3\nquorum g\n`;
}

const check = async (note: string, policyText: string, nowSeconds = NOW) =>
  checkPolicy({ note, policy: parsePolicy(policyText), maxAgeSeconds: MAX_AGE, nowSeconds });

describe('checkPolicy: a quorum of cosignatures no older than the maximum age', () => {
  it('accepts a checkpoint cosigned within the maximum age, and says until when', async () => {
    const body = testDeploymentBody(5);
    const sig = await cosign(body, NOW - 10, testWitnessSigner());
    const note = `${await testDeploymentCheckpoint(5)}${cosignedResponse([sig]).body}`;
    const result = await check(note, await testPolicyText());
    expect(result).toMatchObject({ kind: 'ACCEPTED', quorumTime: NOW - 10, freshUntil: NOW - 10 + MAX_AGE });
    expect(result.kind === 'ACCEPTED' && result.checkpoint.size).toBe(5);
  });

  it('refuses the same note once its quorum is older than the maximum age (clock injected)', async () => {
    const sig = await cosign(testDeploymentBody(5), NOW, testWitnessSigner());
    const note = `${await testDeploymentCheckpoint(5)}${cosignedResponse([sig]).body}`;
    expect((await check(note, await testPolicyText(), NOW + MAX_AGE)).kind).toBe('ACCEPTED');
    expect(await check(note, await testPolicyText(), NOW + MAX_AGE + 1)).toMatchObject({
      kind: 'REFUSED',
      refusal: PolicyRefusal.QUORUM_STALE,
    });
  });

  it('2 of 3: the quorum time is the second newest cosignature; one fresh and one stale is not enough', async () => {
    const policy = await twoOfThree();
    const fresh = await check(
      await cosigned([
        [1, NOW - 5],
        [2, NOW - 100],
        [3, NOW - 50],
      ]),
      policy,
    );
    expect(fresh).toMatchObject({ kind: 'ACCEPTED', quorumTime: NOW - 50 });
    const stale = await check(
      await cosigned([
        [1, NOW - 5],
        [2, NOW - MAX_AGE - 1],
      ]),
      policy,
    );
    expect(stale).toMatchObject({ kind: 'REFUSED', refusal: PolicyRefusal.QUORUM_STALE });
    const short = await check(await cosigned([[1, NOW - 5]]), policy);
    expect(short).toMatchObject({ kind: 'REFUSED', refusal: PolicyRefusal.QUORUM_NOT_MET });
  });

  it('a cosignature from beyond the allowed clock skew does not count', async () => {
    const result = await check(
      await cosigned([
        [1, NOW + 61],
        [2, NOW],
      ]),
      await twoOfThree(),
    );
    expect(result).toMatchObject({ kind: 'REFUSED', refusal: PolicyRefusal.QUORUM_STALE });
  });

  it('a forged line claiming a policy witness refuses the note, even next to a valid quorum', async () => {
    const note = await cosigned([
      [1, NOW],
      [2, NOW],
      [3, NOW],
    ]);
    const { text, signatures } = parseSignedNote(note);
    const last = signatures.at(-1) as (typeof signatures)[number];
    const forged = Uint8Array.from(last.signature);
    forged[20] = (forged[20] as number) ^ 1;
    const tampered = formatSignedNote(text, [...signatures.slice(0, -1), { ...last, signature: forged }]);
    expect(await check(tampered, await twoOfThree())).toMatchObject({ refusal: PolicyRefusal.FORGED_COSIGNATURE });
  });

  it('a cosignature of another checkpoint does not count for this one', async () => {
    const otherBody = testDeploymentBody(6);
    const sig = await cosign(otherBody, NOW, testWitnessSigner());
    const note = `${await testDeploymentCheckpoint(5)}${cosignedResponse([sig]).body}`;
    expect(await check(note, await testPolicyText())).toMatchObject({ refusal: PolicyRefusal.FORGED_COSIGNATURE });
  });

  it('refuses a checkpoint of a log the policy does not list, or not signed by its key', async () => {
    const policy = await testPolicyText();
    const noLog = policy.split('\n').slice(1).join('\n');
    expect(await check(await cosigned([]), noLog)).toMatchObject({ refusal: PolicyRefusal.UNKNOWN_LOG });
    const impostor = await testDeploymentCheckpoint(5, testNoteSigner(undefined, seed(8)));
    const sig = await cosign(testDeploymentBody(5), NOW, testWitnessSigner());
    const note = `${impostor}${cosignedResponse([sig]).body}`;
    expect(await check(note, policy)).toMatchObject({ refusal: PolicyRefusal.LOG_SIGNATURE_INVALID });
  });

  it('quorum none accepts with no freshness statement; bad clocks are input errors', async () => {
    const none = `log ${formatVerifierKey(await testNoteVerifierKey())}\nquorum none\n`;
    expect(await check(await testDeploymentCheckpoint(5), none)).toMatchObject({ kind: 'ACCEPTED', freshUntil: null });
    const policy = parsePolicy(none);
    const note = await testDeploymentCheckpoint(5);
    expect(() => checkPolicy({ note, policy, maxAgeSeconds: 0, nowSeconds: NOW })).toThrow(InvalidInputError);
    expect(() => checkPolicy({ note, policy, maxAgeSeconds: 1, nowSeconds: -1 })).toThrow(InvalidInputError);
  });
});
