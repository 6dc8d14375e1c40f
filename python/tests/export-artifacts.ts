// Run by python/tests/ts_artifacts.py with `npx tsx`: builds, with the TypeScript core and its test
// helpers, what the Python package must accept as the TypeScript client and CLI write it: a chain,
// receipts (as `reseal export --receipt` writes them), a signed guard rejection and a checkpoint
// store file. Prints one JSON object; takes the store file's path as its only argument.
import { FileCheckpointStore } from '../../client/checkpoint-store';
import { proveInclusion } from '../../shared/log/inclusion-proof';
import { checkpointOrigin } from '../../shared/log/log-names';
import { MemoryMerkleTree } from '../../shared/log/memory-tree';
import { formatVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { conflictStatement, rejectionStatement, requestDigest, signOutcome } from '../../shared/log/outcome-statement';
import { verifyReceipt } from '../../shared/log/receipt';
import { signCheckpoint } from '../../shared/log/signed-checkpoint';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { lineageHeadOf } from '../../shared/seal/sealed-record';
import { TEST_LOG_KEY_NAME, testNoteSigner, toHex } from '../../test/helpers/log-factories';
import { at, buildChain, TEST_LINEAGE_ID } from '../../test/helpers/seal-factories';

const storePath = process.argv[2];
if (!storePath) throw new Error('usage: export-artifacts.ts <checkpoint store file>');

const signer = testNoteSigner();
const key = noteVerifierKey(TEST_LOG_KEY_NAME, await signer.publicKey());
const { records } = await buildChain(3);
const tree = new MemoryMerkleTree();
for (const record of records) tree.append(Buffer.from(record.recordHash, 'hex'));
const origin = checkpointOrigin(TEST_LOG_KEY_NAME, TEST_LINEAGE_ID);
const note = await signCheckpoint({ origin, size: tree.size, rootHash: tree.root(tree.size) }, signer);
const receipts = [];
for (const [seq, record] of records.entries()) {
  const receipt = {
    formatVersion: 1,
    type: 'reseal-receipt',
    lineageId: TEST_LINEAGE_ID,
    record,
    inclusion: {
      leafIndex: seq,
      treeSize: tree.size,
      inclusionProof: (await proveInclusion(seq, tree.size, tree.nodes)).map(toHex),
    },
    checkpoint: note,
  };
  const checked = verifyReceipt(receipt, key);
  if (checked.verdict !== 'VERIFIED_INTACT')
    throw new Error(`the TypeScript core refuses its receipt: ${checked.reason}`);
  receipts.push(receipt);
}

const request = { formatVersion: 1, residualId: 'residual-9', note: 'any JSON the guard refused' };
const rejection: Omit<RejectionRecord, 'statement'> = {
  stage: 'GUARD',
  reason: 'STALE_STATE',
  lineageId: TEST_LINEAGE_ID,
  residualId: 'residual-9',
  messageId: 'message-9',
  verdictDigest: 'a'.repeat(64),
  bodyDigest: 'b'.repeat(64),
  bodyPreview: '{"formatVersion":1,"caf\u00e9":"\u{1F600}"}',
  issues: [],
  rejectedVariables: [{ name: 'TASK_ID', reason: 'UNVERIFIED_INHERITED', detail: 'inherited and not re-verified' }],
  requestViolations: [],
  atMs: 1_800_000_000_000,
  requestDigest: requestDigest(request as never),
};
const rejectionNote = await signOutcome(
  rejectionStatement(TEST_LOG_KEY_NAME, { ...rejection, statement: null }),
  signer,
);

const conflict: Omit<ConflictRecord, 'statement'> = {
  lineageId: TEST_LINEAGE_ID,
  residualId: 'residual-10',
  reason: 'STALE_EPOCH',
  detail: "generation epoch 0 is older than the head's 1",
  attemptedHeader: { ...at(records, 2).header, generationEpoch: 0 },
  expectedHead: null,
  observedHead: lineageHeadOf(at(records, 2)),
  atMs: 1_800_000_000_001,
  messageId: 'message-10',
  requestDigest: requestDigest(request as never),
};
const conflictNote = await signOutcome(conflictStatement(TEST_LOG_KEY_NAME, { ...conflict, statement: null }), signer);

await new FileCheckpointStore(storePath).save(origin, note);
console.log(
  JSON.stringify({
    verifierKey: formatVerifierKey(key),
    origin,
    records,
    receipts,
    request,
    rejection,
    rejectionNote,
    conflict,
    conflictNote,
  }),
);
