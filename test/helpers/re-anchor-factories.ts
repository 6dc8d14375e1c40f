import { LocalEd25519Signer } from '../../shared/log/local-ed25519-signer';
import { type NoteVerifierKey, noteVerifierKey } from '../../shared/log/note-key';

/**
 * The operator's recovery key of the re-anchor tests (docs/deployment-log.md, "Re-anchor"): the
 * fixed seed 0x40, 0x41, …, 0x5f under the name `reseal/test-recovery`.
 */
export const TEST_RECOVERY_SEED: Uint8Array = Uint8Array.from({ length: 32 }, (_, i) => 0x40 + i);
/** Key name of {@link TEST_RECOVERY_SEED}. */
export const TEST_RECOVERY_NAME = 'reseal/test-recovery';

/** A signer over the recovery seed (or another one: a key the witness is not configured with). */
export function testRecoverySigner(seed: Uint8Array = TEST_RECOVERY_SEED): LocalEd25519Signer {
  return new LocalEd25519Signer(TEST_RECOVERY_NAME, seed);
}

/** The verifier key of {@link testRecoverySigner}. */
export async function testRecoveryKey(seed: Uint8Array = TEST_RECOVERY_SEED): Promise<NoteVerifierKey> {
  return noteVerifierKey(TEST_RECOVERY_NAME, await testRecoverySigner(seed).publicKey());
}
