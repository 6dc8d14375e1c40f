import { describe, expect, it } from 'vitest';
import { verifyChain } from '../../../../shared/seal/lineage-verifier';
import { LocalHmacAnchor } from '../../../../shared/seal/local-hmac-anchor';
import { SealedRecordSchema } from '../../../../shared/seal/sealed-record';
import { VerificationVerdict } from '../../../../shared/seal/verification-verdict';
import { isolateDelta, triageReportDigest } from '../../../../shared/triage/delta-isolator';
import { manifestDigest } from '../../../../shared/triage/manifest';
import vectors from '../../../vectors/seal.json';

/**
 * Records stored in the format-1 manifest layout (test/vectors/seal.json, sealed before manifests
 * could declare absent keys) keep verifying and triaging exactly as they did: the report digests
 * below were recorded with the code that wrote those records and must never change.
 */
const records = vectors.records.map((v) => v.record);
const anchor = new LocalHmacAnchor({ keyId: vectors.keyId, key: Buffer.from(vectors.keyHex, 'hex') });
const BASELINE = { ARCH: 'arm64', REGION: 'eu-west-1' };

const EXPECTED = [
  ['unchanged', BASELINE, 'NO_DRIFT', '1d97597d9d7e1841cf58ddb3b488524d29009dfce0c47fd57e4d9533a7b5f78c'],
  [
    'HTTP_PROXY appeared (a format-1 record cannot name it: ambient)',
    { ...BASELINE, HTTP_PROXY: 'http://proxy:3128' },
    'AMBIENT_DRIFT_ONLY',
    '7eb5041d0fd443b05de1d1d25b574497a6d0a49ddb870ca460813a6ad13615b9',
  ],
  [
    'causal key changed',
    { ...BASELINE, REGION: 'us-east-1' },
    'FULL_RECONSTRUCTION_REQUIRED',
    '3672d24d67698c5d8484cf69d415a7d2ecd9c9eaed86c6bc10596d58c07104fc',
  ],
  [
    'structural key changed',
    { ...BASELINE, ARCH: 'x86_64' },
    'FULL_RECONSTRUCTION_REQUIRED',
    '14f95d02cced27a8a9f202cc2ae33c2ffd1309472760baa25194c786d655b950',
  ],
  [
    'causal key vanished',
    { ARCH: 'arm64' },
    'FULL_RECONSTRUCTION_REQUIRED',
    '016b4e43c48294211021c8699195c7a66feefee0967c42e63f1361a1cf84b872',
  ],
] as const;

describe('stored records with format-1 manifests (test/vectors/seal.json)', () => {
  it('still verify intact with the test key, and their manifests still digest to the sealed manifestDigest', async () => {
    const verification = await verifyChain(records, { lineageId: vectors.lineageId, anchor });
    expect(verification.verdict).toBe(VerificationVerdict.VERIFIED_INTACT);
    for (const raw of records) {
      const record = SealedRecordSchema.parse(raw);
      expect(record.manifest.formatVersion).toBe(1);
      expect(manifestDigest(record.manifest)).toBe(record.header.manifestDigest);
    }
  });

  it.each(EXPECTED)('triage of "%s" gives the verdict and report digest it always did', (_, env, verdict, digest) => {
    for (const raw of records) {
      const report = isolateDelta(raw.manifest, env);
      expect(report.verdict).toBe(verdict);
      expect(triageReportDigest(report)).toBe(digest);
    }
  });
});
