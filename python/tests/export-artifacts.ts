// Run by python/tests/conftest.py with `npx tsx`: builds, with the TypeScript core and its test
// helpers, what the Python package must accept as the TypeScript client and CLI write it: a chain,
// receipts (as `reseal export --receipt` writes them), a signed guard rejection, a checkpoint
// store file, and a format-2 (writer-bound) lineage with its receipts and the TypeScript verdicts
// of it and of a stranger's record appended to it (docs/authorship.md). Prints one JSON object;
// takes the store file's path as its only argument.
import { FileCheckpointStore } from '../../client/file-checkpoint-store';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { proveInclusion } from '../../shared/log/inclusion-proof';
import { MemoryMerkleTree } from '../../shared/log/memory-tree';
import { formatVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { conflictStatement, rejectionStatement, signOutcome } from '../../shared/log/outcome-statement';
import { verifyReceipt } from '../../shared/log/receipt';
import { signCheckpoint } from '../../shared/log/sign-checkpoint';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { markValidated } from '../../shared/schemas/validated';
import { lineageHeadOf } from '../../shared/seal/lineage-head';
import { payloadHash } from '../../shared/seal/payload-hash';
import { sealInputOfWrite } from '../../shared/seal/seal-input';
import { sealValidated } from '../../shared/seal/seal-record';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { verifyChain } from '../../shared/seal/verify-chain';
import { manifestDigest } from '../../shared/triage/manifest-digest';
import { requestDigest } from '../../shared/write/request-digest';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { FACTORY_NOW_MS, validWriteRequest } from '../../test/helpers/guard-factories';
import { TEST_LOG_KEY_NAME, testNoteSigner, toHex } from '../../test/helpers/log-factories';
import { at, buildChain, TEST_KEY_BYTES, TEST_LINEAGE_ID, testAnchor } from '../../test/helpers/seal-factories';
import { STRANGER_WRITER, signWriteSync } from '../../test/helpers/writer-factories';

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

// A format-2 lineage as the sealer makes it: inception (the test policy), two writes, then a
// stranger's record sealed onto it (what only the sealer's role could do; verifiers refuse it).
const anchor = testAnchor();
const writerBound: SealedRecord[] = [];
const sealWrite = async (request: ResidualWriteRequest, senderId: string | null) => {
  const digests = { payloadHash: payloadHash(request.payload), manifestDigest: manifestDigest(request.manifest) };
  const previous = writerBound.at(-1);
  const tip = previous ? { ...lineageHeadOf(previous), policyDigest: previous.header.policyDigest ?? null } : null;
  const input = sealInputOfWrite(markValidated(request), 'c'.repeat(64), digests, senderId);
  return sealValidated(input, tip, anchor, FACTORY_NOW_MS + writerBound.length);
};
for (const [index, senderId] of ['AIDAEXAMPLE', null, '000000000000'].entries()) {
  const base = validWriteRequest({ residualId: `residual-w${index}` });
  const { policy: _policy, ...unsetPolicy } = base;
  writerBound.push(
    await sealWrite(index === 0 ? base : signWriteSync(unsetPolicy, undefined, FACTORY_NOW_MS), senderId),
  );
}
const writerLineageId = at(writerBound, 0).header.lineageId;
const verdictOf = async (chain: SealedRecord[]) => {
  const result = await verifyChain(chain, { lineageId: writerLineageId, anchor });
  return {
    verdict: result.verdict,
    recordVerdicts: result.records.map((r) => r.verdict),
    reason: result.firstFailure?.reason ?? null,
  };
};
const { policy: _none, ...strangerWrite } = validWriteRequest({ residualId: 'residual-stranger' });
const withStranger = [
  ...writerBound,
  await sealWrite(signWriteSync(strangerWrite, STRANGER_WRITER, FACTORY_NOW_MS), null),
];
const writerTree = new MemoryMerkleTree();
for (const record of writerBound) writerTree.append(Buffer.from(record.recordHash, 'hex'));
const writerOrigin = checkpointOrigin(TEST_LOG_KEY_NAME, writerLineageId);
const writerNote = await signCheckpoint(
  { origin: writerOrigin, size: writerTree.size, rootHash: writerTree.root(writerTree.size) },
  signer,
);
const writerReceipts = [];
for (const [seq, record] of writerBound.entries()) {
  const receipt = {
    formatVersion: 1,
    type: 'reseal-receipt',
    lineageId: writerLineageId,
    record,
    inclusion: {
      leafIndex: seq,
      treeSize: writerTree.size,
      inclusionProof: (await proveInclusion(seq, writerTree.size, writerTree.nodes)).map(toHex),
    },
    checkpoint: writerNote,
  };
  const checked = verifyReceipt(receipt, key);
  if (checked.verdict !== 'VERIFIED_INTACT')
    throw new Error(`the TypeScript core refuses its format-2 receipt: ${checked.reason}`);
  writerReceipts.push(receipt);
}

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
    writerBound: {
      lineageId: writerLineageId,
      anchorKeyHex: toHex(TEST_KEY_BYTES),
      anchorKeyId: anchor.keyId,
      records: writerBound,
      verdict: await verdictOf(writerBound),
      withStranger,
      withStrangerVerdict: await verdictOf(withStranger),
      receipts: writerReceipts,
    },
  }),
);
