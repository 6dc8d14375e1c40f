import { checkpointBody } from '../../shared/log/checkpoint';
import { LocalEd25519Signer } from '../../shared/log/local-ed25519-signer';
import { formatVerifierKey } from '../../shared/log/note-key';
import { signCheckpoint } from '../../shared/log/sign-checkpoint';
import { type CosignerKey, cosignerKey, formatCosignerKey } from '../../shared/witness/cosigner-key';
import { TEST_LOG_KEY_NAME, testNoteSigner, testNoteVerifierKey, testTree } from './log-factories';

/**
 * Deterministic helpers for tests of the witness and the client policy (docs/witness.md): a
 * fixed witness seed and name, checkpoints of a deployment log signed by the test log key, and a
 * policy over both.
 */

/** The fixed witness seed: the 32 bytes 0x20, 0x21, …, 0x3f. */
export const TEST_WITNESS_SEED: Uint8Array = Uint8Array.from({ length: 32 }, (_, i) => 0x20 + i);
/** Cosigner name of {@link TEST_WITNESS_SEED}. */
export const TEST_WITNESS_NAME = 'reseal/test-witness';
/** Origin of the test deployment log: the log key's name, as C2SP tlog-policy asks. */
export const TEST_DEPLOYMENT_ORIGIN = TEST_LOG_KEY_NAME;

/** A signer over {@link TEST_WITNESS_SEED} (or another seed) named {@link TEST_WITNESS_NAME}. */
export function testWitnessSigner(seed: Uint8Array = TEST_WITNESS_SEED, name = TEST_WITNESS_NAME): LocalEd25519Signer {
  return new LocalEd25519Signer(name, seed);
}

/** The cosigner key of {@link testWitnessSigner} with the same arguments. */
export async function testCosignerKey(
  seed: Uint8Array = TEST_WITNESS_SEED,
  name = TEST_WITNESS_NAME,
): Promise<CosignerKey> {
  return cosignerKey(name, await testWitnessSigner(seed, name).publicKey());
}

/** The note of the test deployment log at `size` leaves (testLeaf 0…size−1), signed by the test log key. */
export async function testDeploymentCheckpoint(size: number, signer = testNoteSigner()): Promise<string> {
  const tree = testTree(size);
  return signCheckpoint({ origin: TEST_DEPLOYMENT_ORIGIN, size, rootHash: tree.root(size) }, signer);
}

/** The body (note text) of {@link testDeploymentCheckpoint}. */
export function testDeploymentBody(size: number): string {
  return checkpointBody({ origin: TEST_DEPLOYMENT_ORIGIN, size, rootHash: testTree(size).root(size) });
}

/** A policy text: the test log, the test witness, quorum that witness (or `quorum`). */
export async function testPolicyText(quorum = 'w1'): Promise<string> {
  const log = formatVerifierKey(await testNoteVerifierKey());
  const witness = formatCosignerKey(await testCosignerKey());
  return `log ${log}\nwitness w1 ${witness}\nquorum ${quorum}\n`;
}
