import { describe, expect, it } from 'vitest';
import { ReAnchorFormatError } from '../../../../shared/errors';
import { checkKeptDeploymentCheckpoint } from '../../../../shared/integrator/kept-deployment-checkpoint';
import {
  formatReAnchorStatement,
  futureReAnchorTime,
  MAX_RE_ANCHOR_TIME_AHEAD_SECONDS,
  parseReAnchorStatement,
  type ReAnchorStatement,
  reAnchorNotice,
  verifyReAnchorStatement,
} from '../../../../shared/integrator/re-anchor-statement';
import { addNoteSignature } from '../../../../shared/log/add-note-signature';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { formatVerifierKey, noteVerifierKey } from '../../../../shared/log/note-key';
import { formatNoteSignerKey, parseNoteSignerKey } from '../../../../shared/log/note-signer-key';
import { signNote } from '../../../../shared/log/signed-note';
import {
  TEST_LOG_KEY_NAME,
  testLeaf,
  testNoteSigner,
  testNoteVerifierKey,
  testTree,
} from '../../../helpers/log-factories';
import { TEST_RECOVERY_SEED, testRecoveryKey, testRecoverySigner } from '../../../helpers/re-anchor-factories';

const tree = testTree(9);
const statement: ReAnchorStatement = {
  origin: TEST_LOG_KEY_NAME,
  restored: { size: 5, rootHash: tree.root(5) },
  lost: { size: 9, rootHash: tree.root(9) },
  timeSeconds: 1_767_225_600,
  reason: 'restored from a point-in-time backup',
};

async function signedBoth(text = formatReAnchorStatement(statement)): Promise<string> {
  return addNoteSignature(await signNote(text, testRecoverySigner()), testNoteSigner());
}

describe('re-anchor statement (docs/deployment-log.md, "Re-anchor")', () => {
  it('formats six lines and reads them back to the same statement', () => {
    const text = formatReAnchorStatement(statement);
    expect(text.split('\n')).toHaveLength(7);
    expect(text.startsWith('reseal/v1/re-anchor\norigin reseal/test-stack\nrestored 5 ')).toBe(true);
    expect(parseReAnchorStatement(text)).toEqual(statement);
  });

  it.each([
    ['a missing line', (t: string) => t.replace(/time .*\n/, '')],
    ['lines out of order', (t: string) => t.replace(/(restored .*\n)(lost .*\n)/, '$2$1')],
    ['a size with a leading zero', (t: string) => t.replace('restored 5 ', 'restored 05 ')],
    ['a root of 31 bytes', (t: string) => t.replace(/lost 9 \S+/, `lost 9 ${Buffer.alloc(31).toString('base64')}`)],
    ['a lost checkpoint smaller than the restored head', (t: string) => t.replace('lost 9 ', 'lost 4 ')],
    ['an empty reason', (t: string) => t.replace(/reason .*\n/, 'reason \n')],
    ['an extension line', (t: string) => `${t}extra\n`],
  ])('refuses %s', (_, edit) => {
    expect(() => parseReAnchorStatement(edit(formatReAnchorStatement(statement)))).toThrow(ReAnchorFormatError);
  });

  it('refuses the same head as lost and restored (nothing to re-anchor), and a reason over one line', () => {
    expect(() => formatReAnchorStatement({ ...statement, lost: statement.restored })).toThrow(ReAnchorFormatError);
    expect(() => formatReAnchorStatement({ ...statement, reason: 'two\nlines' })).toThrow(ReAnchorFormatError);
  });

  it('a time at most the tolerated clock skew after now is taken; one further ahead is refused ("The statement")', () => {
    const t = statement.timeSeconds;
    expect(MAX_RE_ANCHOR_TIME_AHEAD_SECONDS).toBe(5);
    expect(futureReAnchorTime(statement, t + 3600)).toBeNull();
    expect(futureReAnchorTime(statement, t)).toBeNull();
    expect(futureReAnchorTime(statement, t - MAX_RE_ANCHOR_TIME_AHEAD_SECONDS)).toBeNull();
    expect(futureReAnchorTime(statement, t - MAX_RE_ANCHOR_TIME_AHEAD_SECONDS - 1)).toMatch(/lies 6 s after now/);
    expect(futureReAnchorTime(statement, 0)).toMatch(/clock skew/);
  });

  it('verifies with the log key and the recovery key; each missing or failing signature refuses', async () => {
    const logKey = await testNoteVerifierKey();
    const recoveryKeys = [await testRecoveryKey()];
    const both = await signedBoth();
    const keys = { origin: TEST_LOG_KEY_NAME, logKeys: [logKey], recoveryKeys };
    const verified = verifyReAnchorStatement(both, keys);
    expect(verified).toMatchObject({ kind: 'VERIFIED', statement });
    const operatorOnly = await signNote(formatReAnchorStatement(statement), testRecoverySigner());
    expect(verifyReAnchorStatement(operatorOnly, keys)).toMatchObject({ kind: 'REFUSED', reason: /log key/ });
    expect(verifyReAnchorStatement(operatorOnly, { ...keys, logKeys: null })).toMatchObject({ kind: 'VERIFIED' });
    const logOnly = await signNote(formatReAnchorStatement(statement), testNoteSigner());
    expect(verifyReAnchorStatement(logOnly, keys)).toMatchObject({ kind: 'REFUSED', reason: /recovery key/ });
    expect(verifyReAnchorStatement(logOnly, { ...keys, recoveryKeys: null })).toMatchObject({ kind: 'VERIFIED' });
    const edited = both.replace('restored from', 'restored FROM');
    expect(verifyReAnchorStatement(edited, keys).kind).toBe('REFUSED');
    expect(verifyReAnchorStatement(both, { ...keys, origin: 'reseal/other' })).toMatchObject({ kind: 'REFUSED' });
    expect(verifyReAnchorStatement('not a note', keys)).toMatchObject({ kind: 'REFUSED', reason: /malformed/ });
    await expect(addNoteSignature(both, testNoteSigner())).rejects.toThrow(/already signed/);
  });

  it('its notice names what was lost, and its hash what every re-anchored leaf commits to', async () => {
    const verified = verifyReAnchorStatement(await signedBoth(), {
      origin: TEST_LOG_KEY_NAME,
      logKeys: [await testNoteVerifierKey()],
      recoveryKeys: null,
    });
    if (verified.kind !== 'VERIFIED') throw new Error(verified.reason);
    expect(reAnchorNotice(verified)).toMatchObject({
      restoredSize: 5,
      lostSize: 9,
      lostLeaves: 4,
      reason: statement.reason,
    });
    expect(reAnchorNotice(verified).statementHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('kept deployment checkpoint against a re-anchored history', () => {
  const current = testTree(6); // the restored 5 leaves and the re-anchor leaf (leaf 5 another one)
  const notice = {
    restoredSize: 5,
    restoredRootHash: Buffer.from(tree.root(5)).toString('base64'),
    lostSize: 9,
    lostRootHash: Buffer.from(tree.root(9)).toString('base64'),
    lostLeaves: 4,
    timeSeconds: 0,
    reason: 'r',
    statementHash: '00'.repeat(32),
    note: '',
  };
  const cp = (size: number, t = tree) => ({ origin: TEST_LOG_KEY_NAME, size, rootHash: t.root(size) });

  const before = { keptTimeSeconds: notice.timeSeconds - 60 };
  const after = { keptTimeSeconds: notice.timeSeconds + 60 };

  it('a prefix is consistent; a lost checkpoint cosigned before the statement is explained; the same size with another root is a fork; past the lost one, a rollback', async () => {
    const prefix = await proveConsistency(4, 6, current.nodes);
    expect(
      checkKeptDeploymentCheckpoint({ kept: cp(4), current: cp(6, current), reAnchor: notice, consistency: prefix })
        .kind,
    ).toBe('CONSISTENT');
    expect(
      checkKeptDeploymentCheckpoint({
        kept: cp(8),
        current: cp(6, current),
        reAnchor: notice,
        consistency: [],
        ...before,
      }).kind,
    ).toBe('EXPLAINED_BY_RE_ANCHOR');
    expect(
      checkKeptDeploymentCheckpoint({
        kept: cp(9),
        current: cp(6, current),
        reAnchor: notice,
        consistency: [],
        ...before,
      }).kind,
    ).toBe('EXPLAINED_BY_RE_ANCHOR');
    const other = testTree(9, (i) => Buffer.alloc(32, i + 100));
    expect(
      checkKeptDeploymentCheckpoint({
        kept: cp(9, other),
        current: cp(6, current),
        reAnchor: notice,
        consistency: [],
        ...before,
      }).kind,
    ).toBe('FORK');
    // Larger than the current one and larger than any lost checkpoint: the statement does not
    // name it, but nothing shows two histories either; the current is older than what the log signed.
    expect(
      checkKeptDeploymentCheckpoint({
        kept: cp(10, testTree(10)),
        current: cp(6, current),
        reAnchor: notice,
        consistency: [],
        ...before,
      }).kind,
    ).toBe('NOT_NEWEST');
    expect(
      checkKeptDeploymentCheckpoint({ kept: cp(8), current: cp(6, current), reAnchor: null, consistency: [] }).kind,
    ).toBe('NOT_NEWEST');
  });

  // docs/deployment-log.md, "What clients see": the size range alone explains nothing larger than
  // the current checkpoint, since a head of the re-anchored history itself falls in it.
  it('a kept checkpoint larger than the current one in the lost range, cosigned after the statement or not at all: a rollback, not the re-anchor', () => {
    const newer = testTree(8, (i) => (i === 5 ? Buffer.alloc(32, 0xaa) : testLeaf(i)));
    for (const time of [after, {}, { keptTimeSeconds: notice.timeSeconds }]) {
      const finding = checkKeptDeploymentCheckpoint({
        kept: cp(8, newer),
        current: cp(6, current),
        reAnchor: notice,
        consistency: [],
        ...time,
      });
      expect(finding.kind).toBe('NOT_NEWEST');
    }
    // At the statement's lost size with another root: a checkpoint of the re-anchored history, not two roots.
    const atLost = testTree(9, (i) => (i === 5 ? Buffer.alloc(32, 0xaa) : testLeaf(i)));
    expect(
      checkKeptDeploymentCheckpoint({
        kept: cp(9, atLost),
        current: cp(6, current),
        reAnchor: notice,
        consistency: [],
        ...after,
      }).kind,
    ).toBe('NOT_NEWEST');
  });

  it('a kept checkpoint no larger than the current one that it does not extend: explained uncosigned or cosigned before the statement, a fork cosigned after it', () => {
    const wide = testTree(9, (i) => (i === 5 ? Buffer.alloc(32, 0xaa) : testLeaf(i)));
    const input = { kept: cp(7), current: cp(8, wide), reAnchor: notice, consistency: [] };
    expect(checkKeptDeploymentCheckpoint(input).kind).toBe('EXPLAINED_BY_RE_ANCHOR');
    expect(checkKeptDeploymentCheckpoint({ ...input, ...before }).kind).toBe('EXPLAINED_BY_RE_ANCHOR');
    expect(checkKeptDeploymentCheckpoint({ ...input, ...after }).kind).toBe('FORK');
  });
});

describe('kept deployment checkpoint against the current one, no re-anchor (docs/deployment-log.md, "What clients see")', () => {
  const cp = (size: number, t = tree) => ({ origin: TEST_LOG_KEY_NAME, size, rootHash: t.root(size) });
  const other = testTree(9, (i) => Buffer.alloc(32, i + 100));
  const check = (kept: ReturnType<typeof cp>, current: ReturnType<typeof cp>, consistency: Uint8Array[]) =>
    checkKeptDeploymentCheckpoint({ kept, current, reAnchor: null, consistency }).kind;

  it('kept smaller: consistent when the current extends it, a fork when it does not', async () => {
    const proof = await proveConsistency(4, 7, tree.nodes);
    expect(check(cp(4), cp(7), proof)).toBe('CONSISTENT');
    expect(check(cp(4, other), cp(7), proof)).toBe('FORK');
  });

  it('kept of the same size: consistent when equal, a fork with another root', () => {
    expect(check(cp(7), cp(7), [])).toBe('CONSISTENT');
    expect(check(cp(7, other), cp(7), [])).toBe('FORK');
  });

  it('kept larger: the current is not the newest (a rollback), with a proof that the current is its prefix or with none', async () => {
    const proof = await proveConsistency(4, 7, tree.nodes);
    const proven = checkKeptDeploymentCheckpoint({ kept: cp(7), current: cp(4), reAnchor: null, consistency: proof });
    expect(proven.kind).toBe('NOT_NEWEST');
    expect(proven.reason).toMatch(/current checkpoint of 4 is older than the kept one of 7/);
    expect(check(cp(7), cp(4), [])).toBe('NOT_NEWEST');
  });

  it('kept larger and a proof given that the current is no prefix of it: a fork', async () => {
    const proof = await proveConsistency(4, 7, tree.nodes);
    expect(check(cp(7), cp(4, other), proof)).toBe('FORK');
  });

  it('of another origin: a fork whatever the sizes', () => {
    expect(
      checkKeptDeploymentCheckpoint({
        kept: { ...cp(7), origin: 'reseal/other' },
        current: cp(4),
        reAnchor: null,
        consistency: [],
      }).kind,
    ).toBe('FORK');
  });
});

describe('recovery key file (the signed-note signer key format)', () => {
  it('round-trips the seed and refuses an edited key hash', async () => {
    const text = await formatNoteSignerKey('reseal/test-recovery', TEST_RECOVERY_SEED);
    expect(text).toMatch(/^PRIVATE\+KEY\+reseal\/test-recovery\+[0-9a-f]{8}\+A/);
    const signer = await parseNoteSignerKey(`${text}\n`);
    expect(formatVerifierKey(noteVerifierKey(signer.keyName, await signer.publicKey()))).toBe(
      formatVerifierKey(await testRecoveryKey()),
    );
    await expect(parseNoteSignerKey(text.replace(/\+([0-9a-f]{8})\+/, '+00000000+'))).rejects.toThrow(/key hash/);
  });
});
