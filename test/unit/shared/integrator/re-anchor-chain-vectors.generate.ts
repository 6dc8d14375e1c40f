/**
 * Writes test/vectors/re-anchor-chain.json: run once with
 * `npx tsx test/unit/shared/integrator/re-anchor-chain-vectors.generate.ts > /tmp/c.json && mv /tmp/c.json test/vectors/re-anchor-chain.json`,
 * then review the diff by hand. `re-anchor-chain-vectors.test.ts` (and the Python
 * `test_re_anchor_chain_vectors.py`) decide every case again with the code.
 *
 * Three histories of one log (docs/deployment-log.md, "Re-anchor", "A chain of re-anchors"): the
 * first (leaves "h0-<i>") of 4 leaves, restored to 1 and re-anchored (A: lost 4); the second
 * (the first's leaf 0, then "h1-<i>") of 4 leaves, restored to 3 and re-anchored (B: lost 4, made
 * an hour after A); the current (the second's 3 leaves, then "h2-<i>") of 6. Roots are RFC 9162
 * roots of those leaves (only sizes and roots matter to the decision).
 */
import { createHash } from 'node:crypto';
import { formatReAnchorStatement, type ReAnchorStatement } from '../../../../shared/integrator/re-anchor-statement';
import { addNoteSignature } from '../../../../shared/log/add-note-signature';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { MemoryMerkleTree } from '../../../../shared/log/memory-tree';
import { signNote } from '../../../../shared/log/signed-note';
import { TEST_LOG_KEY_NAME, testNoteSigner } from '../../../helpers/log-factories';
import { testRecoverySigner } from '../../../helpers/re-anchor-factories';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const leaf = (name: string) => createHash('sha256').update(name).digest();
const treeOf = (names: readonly string[]) => {
  const tree = new MemoryMerkleTree();
  for (const name of names) tree.append(leaf(name));
  return tree;
};
const h0Names = [0, 1, 2, 3].map((i) => `h0-${i}`);
const h1Names = [...h0Names.slice(0, 1), ...[1, 2, 3].map((i) => `h1-${i}`)];
const h2Names = [...h1Names.slice(0, 3), ...[3, 4, 5].map((i) => `h2-${i}`)];
const [h0, h1, h2] = [treeOf(h0Names), treeOf(h1Names), treeOf(h2Names)];
const other = treeOf([0, 1, 2, 3].map((i) => `other-${i}`));

const log = testNoteSigner();
const recovery = testRecoverySigner();
const TIME = 1_767_225_600;
async function statementNote(s: Omit<ReAnchorStatement, 'origin'>): Promise<{ note: string; operatorNote: string }> {
  const operatorNote = await signNote(formatReAnchorStatement({ origin: TEST_LOG_KEY_NAME, ...s }), recovery);
  return { note: await addNoteSignature(operatorNote, log), operatorNote };
}
const a = await statementNote({
  restored: { size: 1, rootHash: h0.root(1) },
  lost: { size: 4, rootHash: h0.root(4) },
  timeSeconds: TIME,
  reason: 'first restore',
});
const b = await statementNote({
  restored: { size: 3, rootHash: h1.root(3) },
  lost: { size: 4, rootHash: h1.root(4) },
  timeSeconds: TIME + 3600,
  reason: 'second restore',
});
// B's statement dated before A's: the chain A → it is not linked.
const bEarlier = await statementNote({
  restored: { size: 3, rootHash: h1.root(3) },
  lost: { size: 4, rootHash: h1.root(4) },
  timeSeconds: TIME - 3600,
  reason: 'second restore',
});
// A statement whose lost checkpoint is no later than A's re-anchor leaf: not of the history A began.
const notAfterA = await statementNote({
  restored: { size: 0, rootHash: h0.root(0) },
  lost: { size: 1, rootHash: h1.root(1) },
  timeSeconds: TIME + 3600,
  reason: 'second restore',
});

const cp = (tree: MemoryMerkleTree, size: number) => ({ size, rootHex: hex(tree.root(size)) });
const proof = async (from: number) => (await proveConsistency(from, 6, h2.nodes)).map(hex);
const current = cp(h2, 6);
type Case = {
  name: string;
  kept: { size: number; rootHex: string };
  reAnchor: string;
  reAnchorChain: unknown;
  consistency: string[];
  /** When a quorum of witnesses had cosigned the kept note (`quorumCosignedAt`), or `null` (uncosigned). */
  keptTimeSeconds: number | null;
  expected: { kind: string; statement?: 'A' | 'B'; chainLength?: number };
};
const cases: Case[] = [
  {
    name: 'the first history at its lost checkpoint, through A then B',
    kept: cp(h0, 4),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'EXPLAINED_BY_RE_ANCHOR', statement: 'A', chainLength: 2 },
  },
  {
    name: 'the first history inside its lost part, through A then B',
    kept: cp(h0, 3),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'EXPLAINED_BY_RE_ANCHOR', statement: 'A', chainLength: 2 },
  },
  {
    name: 'the second history at its lost checkpoint: B alone',
    kept: cp(h1, 4),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'EXPLAINED_BY_RE_ANCHOR', statement: 'B', chainLength: 1 },
  },
  {
    name: 'the second history at the restored head: a prefix of the current one',
    kept: cp(h1, 3),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: await proof(3),
    keptTimeSeconds: null,
    expected: { kind: 'CONSISTENT' },
  },
  {
    name: 'the first history inside its lost part, the earlier statement deleted',
    kept: cp(h0, 3),
    reAnchor: b.note,
    reAnchorChain: null,
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'FORK' },
  },
  {
    name: "the first history at its lost checkpoint, the earlier statement deleted (B's lost checkpoint has that size, another root)",
    kept: cp(h0, 4),
    reAnchor: b.note,
    reAnchorChain: [],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'FORK' },
  },
  {
    name: 'the earlier statement without the log signature (the operator note alone)',
    kept: cp(h0, 3),
    reAnchor: b.note,
    reAnchorChain: [a.operatorNote],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'FORK' },
  },
  {
    name: 'the earlier statement edited under its signatures',
    kept: cp(h0, 3),
    reAnchor: b.note,
    reAnchorChain: [a.note.replace('first restore', 'first restorE')],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'FORK' },
  },
  {
    name: 'a broken entry before the earlier statement: the chain from it on still holds',
    kept: cp(h0, 3),
    reAnchor: b.note,
    reAnchorChain: ['not a note', a.note],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'EXPLAINED_BY_RE_ANCHOR', statement: 'A', chainLength: 2 },
  },
  {
    name: 'a broken entry after the earlier statement: the link is missing',
    kept: cp(h0, 3),
    reAnchor: b.note,
    reAnchorChain: [a.note, 42],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'FORK' },
  },
  {
    name: 'the current statement dated before the earlier one: not linked',
    kept: cp(h0, 3),
    reAnchor: bEarlier.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'FORK' },
  },
  {
    name: 'the current statement lost no checkpoint of the history the earlier one began: not linked',
    kept: cp(h0, 3),
    reAnchor: notAfterA.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'FORK' },
  },
  {
    name: "another root at the earlier statement's lost size: two roots, through the chain too",
    kept: cp(other, 4),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: null,
    expected: { kind: 'FORK' },
  },
  // docs/deployment-log.md, "What clients see": a statement explains only a kept checkpoint its
  // witnesses cosigned before the statement was made.
  {
    name: 'the first history inside its lost part, cosigned before A: through A then B',
    kept: cp(h0, 3),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: TIME - 60,
    expected: { kind: 'EXPLAINED_BY_RE_ANCHOR', statement: 'A', chainLength: 2 },
  },
  {
    name: "inside A's lost part, cosigned after A: no statement is younger, a fork",
    kept: cp(h0, 3),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: TIME + 60,
    expected: { kind: 'FORK' },
  },
  {
    name: 'the second history at its lost checkpoint, cosigned after A and before B: B alone',
    kept: cp(h1, 4),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: TIME + 60,
    expected: { kind: 'EXPLAINED_BY_RE_ANCHOR', statement: 'B', chainLength: 1 },
  },
  {
    name: "at B's lost size, cosigned after B: neither statement explains it, a fork",
    kept: cp(h1, 4),
    reAnchor: b.note,
    reAnchorChain: [a.note],
    consistency: [],
    keptTimeSeconds: TIME + 3660,
    expected: { kind: 'FORK' },
  },
];

const vectors = {
  description:
    'docs/deployment-log.md, "Re-anchor", "A chain of re-anchors": a kept deployment checkpoint against the current one of a log re-anchored twice (statement A, then B); each case names the head item\'s reAnchor and reAnchorChain as stored the time a quorum of witnesses had cosigned the kept note (keptTimeSeconds, null when uncosigned) and the finding of checkKeptDeploymentCheckpoint',
  logKeyName: TEST_LOG_KEY_NAME,
  logPublicKeyHex: hex(await log.publicKey()),
  statements: { A: a.note, B: b.note },
  current,
  cases,
};
process.stdout.write(`${JSON.stringify(vectors, null, 2)}\n`);
