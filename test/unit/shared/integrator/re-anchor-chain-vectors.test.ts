import { describe, expect, it } from 'vitest';
import { checkKeptDeploymentCheckpoint } from '../../../../shared/integrator/kept-deployment-checkpoint';
import { verifyReAnchorChain } from '../../../../shared/integrator/re-anchor-chain';
import { reAnchorNotice, verifyReAnchorStatement } from '../../../../shared/integrator/re-anchor-statement';
import { noteVerifierKey } from '../../../../shared/log/note-key';
import vectors from '../../../vectors/re-anchor-chain.json';

// test/vectors/re-anchor-chain.json (docs/deployment-log.md, "Re-anchor", "A chain of re-anchors"):
// each case decided from the head item's fields as stored, as `DeploymentChainReader.compareKept`
// decides them; the Python package decides the same cases (python/tests/test_re_anchor_chain_vectors.py).
const key = noteVerifierKey(vectors.logKeyName, Buffer.from(vectors.logPublicKeyHex, 'hex'));
const origin = vectors.logKeyName;
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const statementHashOf = (note: string) => {
  const verified = verifyReAnchorStatement(note, { origin, logKeys: [key], recoveryKeys: null });
  if (verified.kind !== 'VERIFIED') throw new Error(verified.reason);
  return reAnchorNotice(verified);
};

describe('kept checkpoints against a log re-anchored twice (test/vectors/re-anchor-chain.json)', () => {
  it.each(vectors.cases)('$name: $expected.kind', (c) => {
    const current = statementHashOf(c.reAnchor);
    const finding = checkKeptDeploymentCheckpoint({
      kept: { origin, size: c.kept.size, rootHash: bytes(c.kept.rootHex) },
      current: { origin, size: vectors.current.size, rootHash: bytes(vectors.current.rootHex) },
      reAnchor: current,
      earlier: verifyReAnchorChain(c.reAnchorChain, key, origin),
      consistency: c.consistency.map(bytes),
      keptTimeSeconds: c.keptTimeSeconds,
    });
    expect(finding.kind).toBe(c.expected.kind);
    if (finding.kind === 'EXPLAINED_BY_RE_ANCHOR') {
      const named = c.expected.statement === 'A' ? vectors.statements.A : vectors.statements.B;
      expect(finding.reAnchor.statementHash).toBe(statementHashOf(named).statementHash);
      expect(finding.chain).toHaveLength(c.expected.chainLength ?? 0);
      expect(finding.chain.at(-1)?.statementHash).toBe(current.statementHash);
    }
  });

  it('the chain as stored: only entries signed by the log key, from the last broken one on', () => {
    const [a, b] = [vectors.statements.A, vectors.statements.B];
    const hashes = (stored: unknown) => verifyReAnchorChain(stored, key, origin).map((n) => n.statementHash);
    const [ha, hb] = [statementHashOf(a).statementHash, statementHashOf(b).statementHash];
    expect(hashes([a, b])).toEqual([ha, hb]);
    expect(hashes([a, 'garbage', b])).toEqual([hb]);
    expect(hashes([b, a.replace('origin reseal/test-stack', 'origin reseal/other')])).toEqual([]);
    expect(hashes('not a list')).toEqual([]);
    expect(hashes(null)).toEqual([]);
  });
});
