import { describe, expect, it } from 'vitest';
import { NoteFormatError, NoteVerificationError } from '../../../../shared/errors';
import { checkpointBody, parseCheckpointBody } from '../../../../shared/log/checkpoint';
import { consistencyProofRefs, proveConsistency } from '../../../../shared/log/consistency-proof';
import { inclusionProofRefs, proveInclusion } from '../../../../shared/log/inclusion-proof';
import { LocalEd25519Signer } from '../../../../shared/log/local-ed25519-signer';
import { MemoryMerkleTree } from '../../../../shared/log/memory-tree';
import { leafHash } from '../../../../shared/log/merkle-hash';
import { formatVerifierKey, noteVerifierKey, parseVerifierKey } from '../../../../shared/log/note-key';
import { signCheckpoint } from '../../../../shared/log/sign-checkpoint';
import { signNote, verifyNote } from '../../../../shared/log/signed-note';
import { verifyCheckpoint } from '../../../../shared/log/verified-checkpoint';
import { verifyConsistency } from '../../../../shared/log/verify-consistency';
import { verifyInclusion } from '../../../../shared/log/verify-inclusion';
import { fromBase64, fromHex, TEST_NOTE_SEED, testLeaf, toHex } from '../../../helpers/log-factories';
import { refPath, refProof, refRoot } from '../../../helpers/merkle-reference';
import vectors from '../../../vectors/log.json';

/** Upstream writes integers beyond 2^53 − 1 as strings; as JavaScript numbers they are unsafe, so refused. */
const count = (value: number | string) => (typeof value === 'string' ? Number(value) : value);

describe('log vectors: RFC 9162 reference tree (transparency-dev/merkle)', () => {
  const { rfc9162 } = vectors;
  const leaves = rfc9162.leavesHex.map(fromHex);
  const tree = new MemoryMerkleTree();
  for (const leaf of leaves) tree.append(leaf);

  it('every stored node and every root match', async () => {
    for (const [level, hashes] of rfc9162.nodesHex.entries()) {
      const refs = hashes.map((_, index) => ({ level, index }));
      expect((await tree.nodes(refs)).map(toHex)).toEqual(hashes);
    }
    rfc9162.rootsHex.forEach((root, size) => {
      expect(toHex(tree.root(size))).toBe(root);
      expect(toHex(refRoot(leaves.slice(0, size)))).toBe(root);
    });
  });

  it('inclusion proofs are reproduced and verify', async () => {
    for (const { index, size, proofHex } of rfc9162.inclusion) {
      const proof = await proveInclusion(index, size, tree.nodes);
      expect(proof.map(toHex)).toEqual(proofHex);
      expect(refPath(index, leaves.slice(0, size)).map(toHex)).toEqual(proofHex);
      const rootHash = fromHex(rfc9162.rootsHex[size] as string);
      const hash = leafHash(leaves[index] as Uint8Array);
      expect(verifyInclusion({ leafIndex: index, treeSize: size, leafHash: hash, proof, rootHash })).toBe(true);
    }
  });

  it('consistency proofs are reproduced and verify', async () => {
    for (const { size1, size2, proofHex } of rfc9162.consistency) {
      const proof = await proveConsistency(size1, size2, tree.nodes);
      expect(proof.map(toHex)).toEqual(proofHex);
      expect(refProof(size1, leaves.slice(0, size2)).map(toHex)).toEqual(proofHex);
      const [root1, root2] = [rfc9162.rootsHex[size1], rfc9162.rootsHex[size2]].map((hex) => fromHex(hex as string));
      expect(verifyConsistency({ size1, size2, root1: root1 as Uint8Array, root2: root2 as Uint8Array, proof })).toBe(
        true,
      );
    }
  });
});

describe('log vectors: transparency-dev/merkle verifier probes', () => {
  const { inclusion, consistency } = vectors.rfc9162Probes;

  it('hold every upstream probe, and differ from upstream only where a deviation says why', () => {
    expect(inclusion.length).toBeGreaterThan(90);
    expect(consistency.length).toBeGreaterThan(90);
    const all = [...inclusion, ...consistency] as { wantErr: boolean; resealVerifies: boolean; deviation?: string }[];
    for (const probe of all) if (!probe.deviation) expect(probe.resealVerifies).toBe(!probe.wantErr);
    expect(all.filter((probe) => probe.deviation)).toHaveLength(1);
  });

  it.each(inclusion.map((probe) => [probe.file, probe]))('%s', (_file, probe) => {
    const verdict = verifyInclusion({
      leafIndex: count(probe.leafIdx),
      treeSize: count(probe.treeSize),
      leafHash: fromBase64(probe.leafHash),
      proof: probe.proof.map(fromBase64),
      rootHash: fromBase64(probe.root),
    });
    expect(verdict).toBe(probe.resealVerifies);
  });

  it.each(consistency.map((probe) => [probe.file, probe]))('%s', (_file, probe) => {
    const verdict = verifyConsistency({
      size1: count(probe.size1),
      size2: count(probe.size2),
      root1: fromBase64(probe.root1),
      root2: fromBase64(probe.root2),
      proof: probe.proof.map(fromBase64),
    });
    expect(verdict).toBe(probe.resealVerifies);
  });
});

describe('log vectors: signed notes (golang.org/x/mod sumdb/note, C2SP signed-note)', () => {
  const note = vectors.signedNote;
  const peter = () => parseVerifierKey(note.verifierKeys.PeterNeumann);
  const enoch = () => parseVerifierKey(note.verifierKeys.EnochRoot);
  const peterLine = note.signatureLines.PeterNeumann;
  const enochLine = note.signatureLines.EnochRoot;

  it('the Go signer key (0x01 || seed) signs the text into exactly the Go note, and has the Go vkey', async () => {
    const material = fromBase64(note.signerKey.split('+').slice(4).join('+'));
    expect(material[0]).toBe(1);
    const signer = new LocalEd25519Signer('PeterNeumann', material.subarray(1));
    expect(formatVerifierKey(noteVerifierKey('PeterNeumann', await signer.publicKey()))).toBe(
      note.verifierKeys.PeterNeumann,
    );
    expect(await signNote(note.text, signer)).toBe(note.signedNote);
  });

  it('verifies with the Go verifier keys; foreign signatures are ignored', () => {
    expect(verifyNote(note.signedNote, peter())).toBe(note.text);
    const both = `${note.text}\n${peterLine}${enochLine}`;
    expect(verifyNote(both, peter())).toBe(note.text);
    expect(verifyNote(both, enoch())).toBe(note.text);
    expect(verifyNote(`${note.text}\n${enochLine}${peterLine}${peterLine}`, peter())).toBe(note.text);
    expect(() => verifyNote(note.signedNote, enoch())).toThrow(NoteVerificationError);
  });

  it('refuses the Go bad verifier keys and malformed notes', () => {
    for (const vkey of note.badVerifierKeys) expect(() => parseVerifierKey(vkey), vkey).toThrow();
    for (const bad of note.malformedNotes) expect(() => verifyNote(bad, peter()), bad).toThrow(NoteFormatError);
    expect(() => verifyNote(`${note.text}\n${peterLine.repeat(101)}`, peter())).toThrow(NoteFormatError);
  });

  it('refuses the Go tampered signatures (as Go does, or as no signature by the key)', () => {
    const longer = `${note.text}\n${peterLine.slice(0, 60)}ABCD${peterLine.slice(60)}`;
    expect(() => verifyNote(longer, peter())).toThrow(/does not verify/);
    const misnamed = `${note.text}\n${peterLine.replaceAll('PeterNeumann', 'CarmenSandiego')}`;
    expect(() => verifyNote(misnamed, peter())).toThrow(/no signature line by this key/);
    const rehashed = `${note.text}\n${peterLine.replaceAll('x08g', 'xxxx')}`;
    expect(() => verifyNote(rehashed, peter())).toThrow(/no signature line by this key/);
  });

  it('verifies the C2SP specification example', () => {
    const { example } = note;
    expect(verifyNote(example.signedNote, parseVerifierKey(example.verifierKey))).toBe(example.text);
  });
});

describe('log vectors: Reseal (7 record-hash-like leaves, signed checkpoint)', () => {
  const { reseal } = vectors;
  const leaves = Array.from({ length: reseal.leavesHex.length }, (_, i) => testLeaf(i));
  const tree = new MemoryMerkleTree();
  for (const leaf of leaves) tree.append(leaf);

  it('leaves, leaf hashes, roots of every size and the frontier match', () => {
    expect(leaves.map(toHex)).toEqual(reseal.leavesHex);
    expect(leaves.map((leaf) => toHex(leafHash(leaf)))).toEqual(reseal.leafHashesHex);
    expect(reseal.rootsHex.map((_, size) => toHex(tree.root(size)))).toEqual(reseal.rootsHex);
    expect(reseal.rootsHex.map((_, size) => toHex(refRoot(leaves.slice(0, size))))).toEqual(reseal.rootsHex);
    expect(tree.frontier.map(toHex)).toEqual(reseal.frontierHex);
  });

  it('node refs and proofs match, and verify', async () => {
    for (const { index, size, refs, proofHex } of reseal.inclusion) {
      expect(inclusionProofRefs(index, size)).toEqual(refs);
      const proof = await proveInclusion(index, size, tree.nodes);
      expect(proof.map(toHex)).toEqual(proofHex);
      const rootHash = tree.root(size);
      const hash = leafHash(leaves[index] as Uint8Array);
      expect(verifyInclusion({ leafIndex: index, treeSize: size, leafHash: hash, proof, rootHash })).toBe(true);
    }
    for (const { size1, size2, refs, proofHex } of reseal.consistency) {
      expect(consistencyProofRefs(size1, size2)).toEqual(refs);
      const proof = await proveConsistency(size1, size2, tree.nodes);
      expect(proof.map(toHex)).toEqual(proofHex);
      const [root1, root2] = [tree.root(size1), tree.root(size2)];
      expect(verifyConsistency({ size1, size2, root1, root2, proof })).toBe(true);
    }
  });

  it('the checkpoint signed by the test seed is reproduced byte for byte and verifies', async () => {
    const { checkpoint: vector } = reseal;
    expect(fromHex(vector.seedHex)).toEqual(TEST_NOTE_SEED);
    const signer = new LocalEd25519Signer(vector.keyName, TEST_NOTE_SEED);
    const key = noteVerifierKey(vector.keyName, await signer.publicKey());
    expect(toHex(key.publicKey)).toBe(vector.publicKeyHex);
    expect(toHex(key.keyHash)).toBe(vector.keyHashHex);
    expect(formatVerifierKey(key)).toBe(vector.verifierKey);
    const checkpoint = { origin: vector.origin, size: vector.size, rootHash: tree.root(vector.size) };
    expect(toHex(checkpoint.rootHash)).toBe(vector.rootHex);
    expect(checkpointBody(checkpoint)).toBe(vector.body);
    expect(parseCheckpointBody(vector.body)).toEqual(checkpoint);
    expect(await signCheckpoint(checkpoint, signer)).toBe(vector.signedNote);
    expect(verifyCheckpoint(vector.signedNote, parseVerifierKey(vector.verifierKey), vector.origin)).toEqual(
      checkpoint,
    );
  });
});
