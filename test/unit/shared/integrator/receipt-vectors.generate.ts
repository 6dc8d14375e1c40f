/**
 * Writes test/vectors/receipt-v2.json: run once with
 * `npx tsx test/unit/shared/integrator/receipt-vectors.generate.ts > /tmp/r.json && mv /tmp/r.json test/vectors/receipt-v2.json`,
 * then review the diff by hand. The receipt is built by the real code (the sealer and the
 * integrator in memory with the test keys, `ResealClient.chainReceipt`), its deployment checkpoint
 * cosigned by the test witness; `receipt-vectors.test.ts` recomputes every step with plain
 * node:crypto, so a format change shows up as a failing test, never as a silently regenerated file.
 */
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { formatCosignerKey } from '../../../../shared/witness/cosigner-key';
import { cosignedByTestWitness, integratedStack, witnessedTestPolicy } from '../../../helpers/integrated-stack';
import { TEST_LOG_KEY, testLogSigner } from '../../../helpers/pipeline-keys';
import { testCosignerKey, testWitnessSigner } from '../../../helpers/witness-factories';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGE = testLineageId('vector-lineage');
const s = integratedStack();
for (const r of ['r-0', 'r-1', 'r-2']) {
  const sealed = await s.send({ lineageId: LINEAGE, residualId: r });
  if (sealed.kind !== 'SEALED') throw new Error(`r sealed: ${JSON.stringify(sealed)}`);
}
await s.integrate();
const nowSeconds = Math.floor(s.clock.now / 1000);
const cosignedAt = nowSeconds - 60;
const head = s.deployment.head;
if (!head?.published) throw new Error('nothing published');
s.deployment.head = { ...head, published: await cosignedByTestWitness(head.published, cosignedAt) };
const policy = await witnessedTestPolicy();
const receipt = await s.client({ deps: { policy } }).chainReceipt(LINEAGE, 1);

console.log(
  JSON.stringify(
    {
      source:
        'test/unit/shared/integrator/receipt-vectors.generate.ts; recomputed by test/unit/shared/integrator/receipt-vectors.test.ts with plain node:crypto (docs/verifiable-log.md, "Receipts")',
      note: 'a format-2 receipt of seq 1 of a lineage of 3 records, integrated once; its deployment checkpoint signed by the log key and cosigned by the witness 60 s before nowSeconds',
      logKey: formatVerifierKey(TEST_LOG_KEY),
      logPublicKeyHex: Buffer.from(await testLogSigner().publicKey()).toString('hex'),
      witnessKey: formatCosignerKey(await testCosignerKey()),
      witnessPublicKeyHex: Buffer.from(await testWitnessSigner().publicKey()).toString('hex'),
      policy: policy.text,
      nowSeconds,
      cosignedAt,
      maxAgeSeconds: 180,
      receipt,
    },
    null,
    2,
  ),
);
