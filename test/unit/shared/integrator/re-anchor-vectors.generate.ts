/**
 * Writes test/vectors/re-anchor.json: run once with
 * `npx tsx test/unit/shared/integrator/re-anchor-vectors.generate.ts > /tmp/r.json && mv /tmp/r.json test/vectors/re-anchor.json`,
 * then review the diff by hand. `re-anchor-vectors.test.ts` recomputes every value with plain
 * node:crypto and RFC 9162 from its definitions, and checks the code against the file.
 */
import { createHash } from 'node:crypto';
import { appendIndexRoot, appendReAnchor } from '../../../../shared/integrator/deployment-append';
import { deploymentLeaf } from '../../../../shared/integrator/deployment-leaf';
import { emptyDeploymentLogState } from '../../../../shared/integrator/deployment-log-state';
import { formatReAnchorStatement, reAnchorStatementHash } from '../../../../shared/integrator/re-anchor-statement';
import { reAnchoredLeaf } from '../../../../shared/integrator/re-anchored-leaf';
import { addNoteSignature } from '../../../../shared/log/add-note-signature';
import { checkpointBody } from '../../../../shared/log/checkpoint';
import { formatVerifierKey, noteVerifierKey } from '../../../../shared/log/note-key';
import { signCheckpoint } from '../../../../shared/log/sign-checkpoint';
import { signNote } from '../../../../shared/log/signed-note';
import { TEST_LOG_KEY_NAME, testNoteSigner } from '../../../helpers/log-factories';
import { TEST_RECOVERY_NAME, testRecoverySigner } from '../../../helpers/re-anchor-factories';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** Index root i of the example: SHA-256("index-root-" || i), a stand-in for a verifiable-index root. */
const indexRoot = (i: number) => createHash('sha256').update(`index-root-${i}`).digest();

const log = testNoteSigner();
const recovery = testRecoverySigner();
// The old history: 4 integrations, the witness cosigned 4. The table is restored to 2.
let old = emptyDeploymentLogState();
const oldStates = [];
for (let i = 0; i < 4; i += 1) {
  old = appendIndexRoot(old, indexRoot(i)).state;
  oldStates.push(old);
}
const restored = oldStates[1] as typeof old;
const lost = oldStates[3] as typeof old;
const statement = {
  origin: TEST_LOG_KEY_NAME,
  restored: { size: restored.size, rootHash: restored.rootHash },
  lost: { size: lost.size, rootHash: lost.rootHash },
  timeSeconds: 1_767_225_600,
  reason: 'table restored from a point-in-time backup',
};
const text = formatReAnchorStatement(statement);
const operatorNote = await signNote(text, recovery);
const note = await addNoteSignature(operatorNote, log);
const statementHash = reAnchorStatementHash(text);
const reAnchor = appendReAnchor(restored, statementHash).state;
const after = appendIndexRoot(reAnchor, indexRoot(100)).state;

const vectors = {
  description:
    'docs/deployment-log.md, "Re-anchor": an old history of 4 leaves (index roots SHA-256("index-root-<i>")), the table restored to 2, the statement, the re-anchor leaf (index 2) and one more leaf (index root SHA-256("index-root-100"))',
  statementTag: 'reseal/v1/re-anchor',
  leafTag: 'reseal/v1/deployment-leaf-re-anchored',
  logKeyName: TEST_LOG_KEY_NAME,
  logPublicKeyHex: hex(await log.publicKey()),
  recoveryKeyName: TEST_RECOVERY_NAME,
  recoveryPublicKeyHex: hex(await recovery.publicKey()),
  recoveryVkey: formatVerifierKey(noteVerifierKey(TEST_RECOVERY_NAME, await recovery.publicKey())),
  oldLeavesHex: [0, 1, 2, 3].map((i) => hex(deploymentLeaf(indexRoot(i)))),
  restored: { size: restored.size, rootHex: hex(restored.rootHash) },
  lost: { size: lost.size, rootHex: hex(lost.rootHash) },
  statementText: text,
  statementHashHex: hex(statementHash),
  operatorNote,
  statementNote: note,
  reAnchorLeaf: {
    index: restored.size,
    indexRootHex: hex(indexRoot(1)),
    leafHex: hex(reAnchoredLeaf(indexRoot(1), statementHash)),
    treeSize: reAnchor.size,
    rootHex: hex(reAnchor.rootHash),
    signedCheckpoint: await signCheckpoint(
      { origin: TEST_LOG_KEY_NAME, size: reAnchor.size, rootHash: reAnchor.rootHash },
      log,
    ),
    checkpointBody: checkpointBody({ origin: TEST_LOG_KEY_NAME, size: reAnchor.size, rootHash: reAnchor.rootHash }),
  },
  nextLeaf: {
    index: reAnchor.size,
    indexRootHex: hex(indexRoot(100)),
    leafHex: hex(reAnchoredLeaf(indexRoot(100), statementHash)),
    treeSize: after.size,
    rootHex: hex(after.rootHash),
  },
};
process.stdout.write(`${JSON.stringify(vectors, null, 2)}\n`);
