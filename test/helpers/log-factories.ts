import { createHash } from 'node:crypto';
import { LocalEd25519Signer } from '../../shared/log/local-ed25519-signer';
import { MemoryMerkleTree } from '../../shared/log/memory-tree';
import { type NoteVerifierKey, noteVerifierKey } from '../../shared/log/note-key';

/**
 * Deterministic helpers for tests of the verifiable log: a fixed Ed25519 seed, the key name and
 * origin the vectors use, record-hash-like leaves and an in-memory tree over them.
 */

/** The fixed test note seed: the 32 bytes 0x00, 0x01, …, 0x1f. */
export const TEST_NOTE_SEED: Uint8Array = Uint8Array.from({ length: 32 }, (_, i) => i);
/** Stack name of the vectors. */
export const TEST_STACK_NAME = 'test-stack';
/** Key name of {@link TEST_NOTE_SEED}: `reseal/<stackName>`. */
export const TEST_LOG_KEY_NAME = 'reseal/test-stack';
/** Lineage of the vectors. */
export const TEST_LOG_LINEAGE_ID = 'lineage-1';
/** Checkpoint origin of the vectors: `reseal/<stackName>/<lineageId>`. */
export const TEST_LOG_ORIGIN = 'reseal/test-stack/lineage-1';

/** A {@link LocalEd25519Signer} over the fixed seed (or another one). */
export function testNoteSigner(keyName = TEST_LOG_KEY_NAME, seed: Uint8Array = TEST_NOTE_SEED): LocalEd25519Signer {
  return new LocalEd25519Signer(keyName, seed);
}

/** The verifier key of {@link testNoteSigner} with the same arguments. */
export async function testNoteVerifierKey(
  keyName = TEST_LOG_KEY_NAME,
  seed: Uint8Array = TEST_NOTE_SEED,
): Promise<NoteVerifierKey> {
  return noteVerifierKey(keyName, await testNoteSigner(keyName, seed).publicKey());
}

/** A record-hash-like leaf: the 32 bytes SHA-256(ASCII("leaf-<i>")). */
export function testLeaf(i: number): Uint8Array {
  return Uint8Array.from(createHash('sha256').update(`leaf-${i}`, 'ascii').digest());
}

/** A {@link MemoryMerkleTree} holding `leaves` (default: {@link testLeaf} 0…count−1). */
export function testTree(count: number, leaf: (i: number) => Uint8Array = testLeaf): MemoryMerkleTree {
  const tree = new MemoryMerkleTree();
  for (let i = 0; i < count; i += 1) tree.append(leaf(i));
  return tree;
}

/** Lowercase hex of bytes. */
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
/** Bytes of lowercase hex. */
export const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));
/** Bytes of standard base64 (lenient: upstream probes hold deliberately odd values). */
export const fromBase64 = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'base64'));
