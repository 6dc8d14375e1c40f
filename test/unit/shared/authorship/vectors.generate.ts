/**
 * Writes test/vectors/authorship.json: run with
 * `npx tsx test/unit/shared/authorship/vectors.generate.ts > test/vectors/authorship.json`, then
 * review the diff by hand. The vectors are committed; `vectors.test.ts` checks the code against
 * them and recomputes every digest and the signature with node:crypto alone, so a layout change
 * shows up as a failing test. Ed25519 is deterministic, so a rerun writes the same bytes.
 */
import { boundaryDigest } from '../../../../shared/authorship/boundary-digest';
import { policyDigest } from '../../../../shared/authorship/lineage-policy';
import { requestSigningDigest } from '../../../../shared/authorship/write-signature';
import { writerDigest } from '../../../../shared/authorship/writer-digest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { payloadHash, variablesDigest } from '../../../../shared/seal/record-header';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import { FACTORY_NOW_MS, validWriteRequest } from '../../../helpers/guard-factories';
import { TEST_POLICY, TEST_WRITER, testLineageId } from '../../../helpers/writer-factories';

const label = 'lineage-agent-42';
const request = validWriteRequest({}, { nowMs: FACTORY_NOW_MS });
const { writer } = request;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const senderId = 'AIDAEXAMPLESENDER0001';

const out = {
  description:
    'Reseal authorship vectors (docs/authorship.md). Each digest is lowercase hex SHA-256(ASCII(tag) || 0x00 || UTF-8(preimage)); the writer signs the 32 raw bytes of signedWrite.digest with pure Ed25519 (RFC 8032) under the key of the 32-byte seed key.seedHex.',
  key: {
    seedHex: hex(Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i)),
    keyId: TEST_WRITER.keyId,
    publicKey: TEST_WRITER.publicKey,
  },
  policy: {
    tag: 'reseal/v1/lineage-policy',
    value: TEST_POLICY,
    preimage: canonicalJson(TEST_POLICY),
    digest: policyDigest(TEST_POLICY),
    label,
    lineageId: testLineageId(label),
  },
  request,
  boundary: {
    tag: 'reseal/v1/boundary',
    preimage: canonicalJson({
      v: 1,
      boundary: request.boundary,
      declaredImmutableConstants: request.declaredImmutableConstants,
    }),
    digest: boundaryDigest(request.boundary, request.declaredImmutableConstants),
  },
  signedWrite: {
    tag: 'reseal/v1/signed-write',
    preimage: canonicalJson({
      v: 1,
      lineageId: request.lineageId,
      residualId: request.residualId,
      sessionId: request.sessionId,
      generationEpoch: request.generationEpoch,
      authority: request.authority,
      payloadHash: payloadHash(request.payload),
      manifestDigest: manifestDigest(request.manifest),
      variablesDigest: variablesDigest(request.variablesUsed),
      boundaryDigest: boundaryDigest(request.boundary, request.declaredImmutableConstants),
      supersedes: null,
      policyDigest: policyDigest(TEST_POLICY),
      keyId: writer.keyId,
      publicKey: writer.publicKey,
      signedAtMs: writer.signedAtMs,
    }),
    digest: hex(requestSigningDigest(request, writer)),
    signature: writer.signature,
  },
  writer: {
    tag: 'reseal/v1/writer',
    senderId,
    preimage: canonicalJson({ v: 1, ...writer, senderId }),
    digest: writerDigest({ ...writer, senderId }),
  },
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
