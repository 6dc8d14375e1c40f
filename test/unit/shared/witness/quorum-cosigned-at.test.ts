import { describe, expect, it } from 'vitest';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { cosign } from '../../../../shared/witness/cosign';
import { formatCosignerKey } from '../../../../shared/witness/cosigner-key';
import { quorumCosignedAt } from '../../../../shared/witness/quorum-cosigned-at';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import { cosignedResponse } from '../../../../shared/witness/witness-response';
import { testNoteVerifierKey } from '../../../helpers/log-factories';
import {
  testCosignerKey,
  testDeploymentBody,
  testDeploymentCheckpoint,
  testWitnessSigner,
} from '../../../helpers/witness-factories';

const T = 1_800_000_000;
const seed = (n: number) => new Uint8Array(32).fill(n);

/** The size-5 checkpoint with a cosignature by each `[witness seed, timestamp]`. */
async function cosigned(stamps: readonly [number, number][]): Promise<string> {
  const body = testDeploymentBody(5);
  const sigs = await Promise.all(stamps.map(([s, t]) => cosign(body, t, testWitnessSigner(seed(s), `w${s}.example`))));
  return `${await testDeploymentCheckpoint(5)}${cosignedResponse(sigs).body}`;
}

async function policy(quorum: string) {
  const keys = await Promise.all(
    [1, 2, 3].map(async (n) => formatCosignerKey(await testCosignerKey(seed(n), `w${n}.example`))),
  );
  return parsePolicy(
    `log ${formatVerifierKey(await testNoteVerifierKey())}\n${keys.map((k, i) => `witness W${i + 1} ${k}\n`).join('')}group g 2 W1 W2 W3\nquorum ${quorum}\n`,
  );
}

// docs/deployment-log.md, "What clients see": the time the witnesses vouch a kept checkpoint existed by.
describe('quorumCosignedAt: when a quorum of the policy had cosigned a note', () => {
  it('2 of 3: the second oldest witness, each counted from its oldest cosignature', async () => {
    const note = await cosigned([
      [1, T + 50],
      [2, T + 20],
      [3, T + 90],
      [1, T + 10],
    ]);
    expect(quorumCosignedAt(note, await policy('g'))).toBe(T + 20);
    expect(quorumCosignedAt(note, await policy('W3'))).toBe(T + 90);
  });

  it('no time for a quorum not met, for quorum none, for a forged cosignature line or an unreadable note', async () => {
    expect(quorumCosignedAt(await cosigned([[1, T]]), await policy('g'))).toBeNull();
    expect(quorumCosignedAt(await cosigned([[1, T]]), await policy('none'))).toBeNull();
    const note = await cosigned([
      [1, T],
      [2, T],
    ]);
    const lines = note.split('\n');
    const last = lines.findLastIndex((line) => line.startsWith('— w2.example'));
    const forged = lines.map((line, i) => (i === last ? `${line.slice(0, -4)}AAAA` : line)).join('\n');
    expect(quorumCosignedAt(forged, await policy('g'))).toBeNull();
    expect(quorumCosignedAt('not a note', await policy('g'))).toBeNull();
  });
});
