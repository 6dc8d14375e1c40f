import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { reAnchorStatementHash, verifyReAnchorStatement } from '../../../../shared/integrator/re-anchor-statement';
import { reAnchoredLeaf } from '../../../../shared/integrator/re-anchored-leaf';
import { parseVerifierKey } from '../../../../shared/log/note-key';
import { refRoot } from '../../../helpers/merkle-reference';
import vectors from '../../../vectors/re-anchor.json';

const bytes = (hex: string) => Buffer.from(hex, 'hex');
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const ed25519 = (publicKeyHex: string) =>
  createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), bytes(publicKeyHex)]),
    format: 'der',
    type: 'spki',
  });
/** The signature bytes of the note's line by `name` (after its 4-byte key hash). */
const signatureOf = (note: string, name: string) =>
  Buffer.from(
    note
      .split('\n')
      .find((line) => line.startsWith(`\u2014 ${name} `))
      ?.split(' ')
      .at(-1) ?? '',
    'base64',
  ).subarray(4);

describe('test/vectors/re-anchor.json, recomputed with plain node:crypto (docs/deployment-log.md, "Re-anchor")', () => {
  it('the statement hash is SHA-256(tag || 0x00 || text); the note is signed by the recovery key, then the log key', () => {
    expect(vectors.statementTag).toBe(HashDomain.RE_ANCHOR);
    const text = Buffer.from(vectors.statementText, 'utf8');
    expect(sha(Buffer.from('reseal/v1/re-anchor\0', 'ascii'), text).toString('hex')).toBe(vectors.statementHashHex);
    expect(Buffer.from(reAnchorStatementHash(vectors.statementText)).toString('hex')).toBe(vectors.statementHashHex);
    expect(vectors.statementNote.startsWith(`${vectors.statementText}\n`)).toBe(true);
    expect(vectors.statementNote.startsWith(vectors.operatorNote)).toBe(true);
    const lines = vectors.statementText.split('\n');
    expect(lines[2]).toBe(`restored ${vectors.restored.size} ${bytes(vectors.restored.rootHex).toString('base64')}`);
    expect(lines[3]).toBe(`lost ${vectors.lost.size} ${bytes(vectors.lost.rootHex).toString('base64')}`);
    expect(
      verify(
        null,
        text,
        ed25519(vectors.recoveryPublicKeyHex),
        signatureOf(vectors.statementNote, vectors.recoveryKeyName),
      ),
    ).toBe(true);
    expect(
      verify(null, text, ed25519(vectors.logPublicKeyHex), signatureOf(vectors.statementNote, vectors.logKeyName)),
    ).toBe(true);
    const verified = verifyReAnchorStatement(vectors.statementNote, {
      origin: vectors.logKeyName,
      logKeys: null,
      recoveryKeys: [parseVerifierKey(vectors.recoveryVkey)],
    });
    expect(verified.kind).toBe('VERIFIED');
  });

  it('restored and lost roots are RFC 9162 roots of the old leaves; the re-anchored leaves commit to index root and statement hash', () => {
    const old = vectors.oldLeavesHex.map(bytes);
    expect(Buffer.from(refRoot(old.slice(0, vectors.restored.size))).toString('hex')).toBe(vectors.restored.rootHex);
    expect(Buffer.from(refRoot(old.slice(0, vectors.lost.size))).toString('hex')).toBe(vectors.lost.rootHex);
    const tag = Buffer.from('reseal/v1/deployment-leaf-re-anchored\0', 'ascii');
    expect(vectors.leafTag).toBe(HashDomain.DEPLOYMENT_LEAF_RE_ANCHORED);
    const leaves = [...old.slice(0, vectors.restored.size)];
    for (const step of [vectors.reAnchorLeaf, vectors.nextLeaf]) {
      const leaf = sha(tag, bytes(step.indexRootHex), bytes(vectors.statementHashHex));
      expect(leaf.toString('hex')).toBe(step.leafHex);
      expect(
        Buffer.from(reAnchoredLeaf(bytes(step.indexRootHex), bytes(vectors.statementHashHex))).toString('hex'),
      ).toBe(step.leafHex);
      expect(step.index).toBe(leaves.length);
      leaves.push(leaf);
      expect(step.treeSize).toBe(leaves.length);
      expect(Buffer.from(refRoot(leaves)).toString('hex')).toBe(step.rootHex);
    }
    // The re-anchor leaf repeats the index root of the last leaf the restore kept.
    const plain = sha(Buffer.from('reseal/v1/deployment-leaf\0', 'ascii'), bytes(vectors.reAnchorLeaf.indexRootHex));
    expect(plain.toString('hex')).toBe(vectors.oldLeavesHex[vectors.restored.size - 1]);
  });

  it('the re-anchored checkpoint is the three-line body, signed by the log key', () => {
    const { reAnchorLeaf: step } = vectors;
    expect(step.checkpointBody).toBe(
      `${vectors.logKeyName}\n${step.treeSize}\n${bytes(step.rootHex).toString('base64')}\n`,
    );
    expect(step.signedCheckpoint.startsWith(`${step.checkpointBody}\n`)).toBe(true);
    expect(
      verify(
        null,
        Buffer.from(step.checkpointBody),
        ed25519(vectors.logPublicKeyHex),
        signatureOf(step.signedCheckpoint, vectors.logKeyName),
      ),
    ).toBe(true);
  });
});
