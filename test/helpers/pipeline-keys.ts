import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { LocalEd25519Signer } from '../../shared/log/local-ed25519-signer';
import { extendLog } from '../../shared/log/log-extension';
import { guardKeyName, sealerKeyName } from '../../shared/log/log-names';
import { authenticateLogState } from '../../shared/log/log-state';
import { type NoteVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { signCheckpoint } from '../../shared/log/sign-checkpoint';
import type { LineageStore } from '../../shared/ports/lineage-store';
import type { NoteSigner } from '../../shared/ports/note-signer';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { appendBatch } from './append-batch';

/** The log name of the test stack (`reseal/<stackName>`). */
export const TEST_LOG_NAME = 'reseal/test-stack';

/** Seeds of the test keys: the log key 0x40…0x5f, the guard key 0x60…0x7f, the sealer key 0x80…0x9f. */
const LOG_SEED = Uint8Array.from({ length: 32 }, (_, i) => 0x40 + i);
const GUARD_SEED = Uint8Array.from({ length: 32 }, (_, i) => 0x60 + i);
const SEALER_SEED = Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i);

/** The test stack's log key (signs checkpoints; the sealer's refusals stored before the sealer key). */
export function testLogSigner(): LocalEd25519Signer {
  return new LocalEd25519Signer(TEST_LOG_NAME, LOG_SEED);
}

/** The test stack's guard key (signs the guard's refusals). */
export function testGuardSigner(): LocalEd25519Signer {
  return new LocalEd25519Signer(guardKeyName(TEST_LOG_NAME), GUARD_SEED);
}

/** The test stack's sealer key (signs the sealer's refusals). */
export function testSealerSigner(): LocalEd25519Signer {
  return new LocalEd25519Signer(sealerKeyName(TEST_LOG_NAME), SEALER_SEED);
}

/** The verifier key of a signer. */
export async function verifierKeyOf(signer: NoteSigner): Promise<NoteVerifierKey> {
  return noteVerifierKey(signer.keyName, await signer.publicKey());
}

/** A signer of another stack's make, same key name: what a forger with its own key produces. */
export function forgerLogSigner(): LocalEd25519Signer {
  return new LocalEd25519Signer(
    TEST_LOG_NAME,
    Uint8Array.from({ length: 32 }, (_, i) => 0xa0 + i),
  );
}

/**
 * Appends already sealed records to a store the way the sealer did before it stopped signing
 * (authenticate the stored state, extend the tree, sign one lineage checkpoint, one conditional
 * append): for tests that build a lineage of older heads without going through the sealer.
 * @returns the signed checkpoint of the new tree
 */
export async function appendSealed(
  store: LineageStore,
  records: readonly SealedRecord[],
  signer: NoteSigner = testLogSigner(),
): Promise<string> {
  const lineageId = (records[0] as SealedRecord).header.lineageId;
  const origin = checkpointOrigin(signer.keyName, lineageId);
  const stored = await store.logHead(lineageId);
  const state = authenticateLogState(stored, { lineageId, origin, key: await verifierKeyOf(signer) });
  const extension = extendLog(state, records, origin);
  const checkpoint = await signCheckpoint(extension.checkpoint, signer);
  await appendBatch(store, {
    lineageId,
    entries: extension.entries,
    expectedHead: stored?.head ?? null,
    headMac: null,
    checkpoint,
    frontier: extension.storedFrontier,
  });
  return checkpoint;
}

/** The verifier keys of the test stack, for clients in tests (pinned: no KMS call). */
export const TEST_LOG_KEY: NoteVerifierKey = await verifierKeyOf(testLogSigner());
export const TEST_GUARD_KEY: NoteVerifierKey = await verifierKeyOf(testGuardSigner());
export const TEST_SEALER_KEY: NoteVerifierKey = await verifierKeyOf(testSealerSigner());
/** `ResealClientDeps` fragment pinning the three test keys. */
export const TEST_CLIENT_KEYS = { logKey: TEST_LOG_KEY, guardKey: TEST_GUARD_KEY, sealerKey: TEST_SEALER_KEY } as const;
