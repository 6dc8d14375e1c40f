/**
 * Writes test/vectors/witness.json: run once with
 * `npx tsx test/unit/shared/witness/vectors.generate.ts > /tmp/witness.json && mv /tmp/witness.json test/vectors/witness.json`,
 * then review the diff by hand. `vectors.test.ts` recomputes every value with plain node:crypto
 * and checks the code against the file, so a format change shows up as a failing test, never as
 * a silently regenerated file.
 */
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { formatSignatureLine } from '../../../../shared/log/signature-line';
import { encodeBase64 } from '../../../../shared/log/strict-base64';
import { formatAddCheckpointRequest } from '../../../../shared/witness/add-checkpoint-request';
import { cosign } from '../../../../shared/witness/cosign';
import { cosignatureMessage } from '../../../../shared/witness/cosignature';
import { formatCosignerKey } from '../../../../shared/witness/cosigner-key';
import {
  TEST_LOG_KEY_NAME,
  TEST_NOTE_SEED,
  testNoteVerifierKey,
  testTree,
  toHex,
} from '../../../helpers/log-factories';
import {
  TEST_WITNESS_NAME,
  TEST_WITNESS_SEED,
  testCosignerKey,
  testDeploymentBody,
  testDeploymentCheckpoint,
  testPolicyText,
  testWitnessSigner,
} from '../../../helpers/witness-factories';

const TIMESTAMP = 1_767_225_600; // 2026-01-01T00:00:00Z
const SIZE1 = 4;
const SIZE2 = 7;

const key = await testCosignerKey();
const signer = testWitnessSigner();
const body = testDeploymentBody(SIZE2);
const cosignature = await cosign(body, TIMESTAMP, signer);
const proof = await proveConsistency(SIZE1, SIZE2, testTree(SIZE2).nodes);
const note = await testDeploymentCheckpoint(SIZE2);

const vectors = {
  description:
    'C2SP tlog-cosignature (cosignature/v1, Ed25519) and tlog-witness add-checkpoint as Reseal uses them (docs/witness.md). Keys come from fixed seeds; Ed25519 is deterministic, so every value is reproducible.',
  log: {
    keyName: TEST_LOG_KEY_NAME,
    seedHex: toHex(TEST_NOTE_SEED),
    vkey: formatVerifierKey(await testNoteVerifierKey()),
  },
  witness: {
    name: TEST_WITNESS_NAME,
    seedHex: toHex(TEST_WITNESS_SEED),
    publicKeyHex: toHex(key.publicKey),
    keyIdHex: toHex(key.keyHash),
    vkey: formatCosignerKey(key),
  },
  cosignature: {
    timestamp: TIMESTAMP,
    checkpointBody: body,
    signedMessage: new TextDecoder().decode(cosignatureMessage(body, TIMESTAMP)),
    signatureHex: toHex(cosignature.signature),
    line: formatSignatureLine(cosignature),
  },
  addCheckpoint: {
    oldSize: SIZE1,
    request: formatAddCheckpointRequest({ oldSize: SIZE1, proof, note }),
    proofBase64: proof.map(encodeBase64),
    response: formatSignatureLine(cosignature),
  },
  policy: await testPolicyText(),
};

process.stdout.write(`${JSON.stringify(vectors, null, 2)}\n`);
