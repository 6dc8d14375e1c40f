import { expect, it } from 'vitest';
import { writeSignatureProblem } from '../../../../shared/authorship/write-signature';
import { markValidated } from '../../../../shared/schemas/validated';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { sealInputOfWrite } from '../../../../shared/seal/seal-input';
import { sealValidated } from '../../../../shared/seal/seal-record';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import { FACTORY_NOW_MS, validWriteRequest } from '../../../../test/helpers/guard-factories';
import { testAnchor } from '../../../../test/helpers/seal-factories';
import { STRANGER_WRITER, signWriteSync } from '../../../../test/helpers/writer-factories';

it('docs/authorship.md: a signed write verifies, an edited one does not; a format-2 record verifies, its writer fields are bound (HASH_MISMATCH), a stranger extending it is LINEAGE_BROKEN (writer not admitted)', async () => {
  const req = validWriteRequest();
  expect(writeSignatureProblem(req, FACTORY_NOW_MS)).toBeNull();
  expect(writeSignatureProblem({ ...req, generationEpoch: 99 }, FACTORY_NOW_MS)).toMatch(/does not verify/);
  const anchor = testAnchor();
  const d = { payloadHash: payloadHash(req.payload), manifestDigest: manifestDigest(req.manifest) };
  const rec = await sealValidated(
    sealInputOfWrite(markValidated(req), 'a'.repeat(64), d, 'AIDA'),
    null,
    anchor,
    FACTORY_NOW_MS,
  );
  expect(rec.header.formatVersion).toBe(2);
  const ok = await verifyChain([rec], { lineageId: req.lineageId, anchor });
  expect(ok.verdict).toBe('VERIFIED_INTACT');
  const edited = structuredClone(rec);
  (edited.writer as { senderId: string | null }).senderId = 'X';
  expect((await verifyChain([edited], { lineageId: req.lineageId, anchor })).verdict).toBe('HASH_MISMATCH');
  const tip = {
    lineageId: req.lineageId,
    seq: 0,
    recordHash: rec.recordHash,
    generationEpoch: 7,
    policyDigest: rec.header.policyDigest,
  };
  const s = signWriteSync({ ...req, residualId: 'r-2', policy: undefined }, STRANGER_WRITER, FACTORY_NOW_MS);
  const { policy: _p, ...s2 } = s;
  const rec2 = await sealValidated(
    sealInputOfWrite(markValidated(s2), 'a'.repeat(64), d, null),
    tip,
    anchor,
    FACTORY_NOW_MS,
  );
  const v = await verifyChain([rec, rec2], { lineageId: req.lineageId, anchor });
  expect(v.verdict).toBe('LINEAGE_BROKEN');
  expect(v.firstFailure?.reason).toMatch(/writer not admitted/);
});
