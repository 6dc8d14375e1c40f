import { describe, expect, it } from 'vitest';
import { LocalHmacAnchor } from '../../../../shared/seal/local-hmac-anchor';
import { SealedRecordSchema } from '../../../../shared/seal/sealed-record';
import { VerificationVerdict } from '../../../../shared/seal/verification-verdict';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import { isolateDelta } from '../../../../shared/triage/isolate-delta';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import { triageReportDigest } from '../../../../shared/triage/triage-report-digest';
import vectors from '../../../vectors/seal.json';

/**
 * Records stored in the format-1 manifest layout (test/vectors/seal.json, sealed before manifests
 * could declare absent keys) keep verifying and triaging exactly as they did. The report digests
 * below cover the whole report, its reason text included (docs/triage.md, "The report"): they
 * change only when a reason's wording does, never with the manifest format.
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
    'd66334441e0185f594c6f074c97b1e9486e769fa27ace2d504775f5d80131422',
  ],
  [
    'causal key changed',
    { ...BASELINE, REGION: 'us-east-1' },
    'FULL_RECONSTRUCTION_REQUIRED',
    '6a533a3563f1d28bd7fbe1088a579c323806fc1056c42fcae8c8c19d93ba0def',
  ],
  [
    'structural key changed',
    { ...BASELINE, ARCH: 'x86_64' },
    'FULL_RECONSTRUCTION_REQUIRED',
    '54a93e84675b1167f29b45b946bd14e926cad3b3312223589baef6698a1b82ba',
  ],
  [
    'causal key vanished',
    { ARCH: 'arm64' },
    'FULL_RECONSTRUCTION_REQUIRED',
    '7bdbb4c30653c378c87ac788df06e12e69be98186c91afc65fa5f1957e3084eb',
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
