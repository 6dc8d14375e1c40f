import { InvalidInputError } from '../errors';
import type { NodeRef, NodeSource } from './node-ref';
import { rangeRoot } from './range-root';
import { requireHashes } from './require-hashes';

const refKey = (ref: NodeRef): string => `${ref.level}/${ref.index}`;

/**
 * The elements of an RFC 9162 §2.1.3.1 or §2.1.4.1 proof from stored nodes: each group of
 * NodeRefs (one per proof element) folded by {@link rangeRoot}, after one `nodes` call with every
 * distinct ref (none when there is no ref).
 *
 * @throws {InvalidInputError} when `nodes` answers other than one 32-byte hash per ref asked for;
 *   rejects with whatever `nodes` rejects with
 */
export async function resolveProofNodes(groups: readonly NodeRef[][], nodes: NodeSource): Promise<Uint8Array[]> {
  const unique: NodeRef[] = [];
  const position = new Map<string, number>();
  for (const ref of groups.flat()) {
    if (!position.has(refKey(ref))) {
      position.set(refKey(ref), unique.length);
      unique.push(ref);
    }
  }
  if (unique.length === 0) return [];
  const hashes = await nodes(unique);
  if (!Array.isArray(hashes) || hashes.length !== unique.length) {
    throw new InvalidInputError('node source answer', [
      {
        path: '',
        message: `expected ${unique.length} hashes, got ${Array.isArray(hashes) ? hashes.length : 'no array'}`,
      },
    ]);
  }
  requireHashes('node source answer', hashes);
  return groups.map((group) =>
    rangeRoot(group.map((ref) => hashes[position.get(refKey(ref)) as number] as Uint8Array)),
  );
}
