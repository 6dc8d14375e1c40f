import { describe, expect, it } from 'vitest';
import { writtenByOf, writtenByProven, writtenByText } from '../../../client/written-by';
import { LocalHmacAnchor } from '../../../shared/seal/local-hmac-anchor';
import { SealedRecordSchema } from '../../../shared/seal/sealed-record';
import { VerificationVerdict } from '../../../shared/seal/verification-verdict';
import { verifyChain } from '../../../shared/seal/verify-chain';
import file from '../../vectors/authorship.json';

// biome-ignore lint/suspicious/noExplicitAny: vectors are untyped JSON on purpose
const vectors: any = file;
const anchor = new LocalHmacAnchor({ keyId: vectors.anchor.keyId, key: Buffer.from(vectors.anchor.keyHex, 'hex') });
// inception, write, rotation (adds writer2), revocation by writer2, recovery, the successor's write
const chain = (): unknown[] => vectors.chain.map((c: { record: unknown }) => structuredClone(c.record));

describe('who wrote it (docs/authorship.md, "Who wrote it")', () => {
  it("a verified chain names each record's writer key, the policy key role that admitted it and whether the id names the policy", async () => {
    const result = await verifyChain(chain(), { lineageId: vectors.lineageId, anchor });
    expect(result.verdict).toBe(VerificationVerdict.VERIFIED_INTACT);
    const shown = result.records.map(writtenByOf);
    expect(shown.map((w) => w?.status === 'SIGNED' && [w.admittedAs, w.keyRole, w.lineageIdCertifiesPolicy])).toEqual([
      ['INCEPTION', 'writer', true],
      ['WRITE', 'writer', true],
      ['ROTATION', 'writer', false],
      ['ROTATION', 'writer', false],
      ['RECOVERY', 'recovery', false],
      ['WRITE', 'writer', false],
    ]);
    expect(shown.map((w) => w?.status === 'SIGNED' && w.keyId)).toEqual(
      vectors.chain.map((c: { record: { writer: { keyId: string } } }) => c.record.writer.keyId),
    );
    expect(shown.map((w) => w?.status === 'SIGNED' && w.publicKey)).toEqual(
      vectors.chain.map((c: { record: { writer: { publicKey: string } } }) => c.record.writer.publicKey),
    );
    expect(shown.every((w) => w?.status === 'SIGNED' && w.admissionCheckedBy === 'walk')).toBe(true);
    expect(writtenByText(shown[4] ?? null)).toContain('admitted as RECOVERY (recovery key');
    expect(writtenByText(shown[0] ?? null)).toContain('the one the lineage id names (self-certifying)');
  });

  it('a record whose writer fields the table writer edited shows no writer, nor do the records after it', async () => {
    const records = chain() as { writer: { keyId: string } }[];
    const edited = records[1];
    if (!edited) throw new Error('the vectors chain has a seq 1');
    edited.writer.keyId = 'someone-else';
    const result = await verifyChain(records, { lineageId: vectors.lineageId, anchor });
    expect(result.records[1]?.verdict).toBe(VerificationVerdict.HASH_MISMATCH);
    expect(result.records.map((r) => writtenByOf(r) !== null)).toEqual([true, false, false, false, false, false]);
    expect(writtenByText(writtenByOf(result.records[1]))).toBe('(not shown: the record does not verify)');
    expect(JSON.stringify(result.records.slice(1))).not.toContain('someone-else');
  });

  it('a record whose MAC cannot be checked shows no writer', async () => {
    const other = new LocalHmacAnchor({ keyId: vectors.anchor.keyId, key: Buffer.alloc(32, 7) });
    const result = await verifyChain(chain(), { lineageId: vectors.lineageId, anchor: other });
    expect(result.verdict).not.toBe(VerificationVerdict.VERIFIED_INTACT);
    expect(result.records.map(writtenByOf)).toEqual(result.records.map(() => null));
  });

  it('a suffix walk that starts after the last policy cannot say how a plain write was admitted', async () => {
    const records = chain();
    const start = vectors.chain[4].record;
    const result = await verifyChain(records.slice(5), {
      lineageId: vectors.lineageId,
      anchor,
      trustedStart: { afterSeq: 4, afterRecordHash: start.recordHash },
    });
    const shown = writtenByOf(result.records[0]);
    expect(shown?.status === 'SIGNED' && shown.admittedAs).toBeNull();
    expect(writtenByText(shown)).toContain('admission not checked');
  });

  it('one proven record shows what it alone proves: inception, a plain write, and no kind for a policy change', () => {
    const records = vectors.chain.map((c: { record: unknown }) => SealedRecordSchema.parse(c.record));
    const shown = records.map(writtenByProven);
    expect(shown.map((w: ReturnType<typeof writtenByProven>) => w.status === 'SIGNED' && w.admittedAs)).toEqual([
      'INCEPTION',
      'WRITE',
      null,
      null,
      null,
      'WRITE',
    ]);
    expect(
      shown.every(
        (w: ReturnType<typeof writtenByProven>) => w.status === 'SIGNED' && w.admissionCheckedBy === 'record',
      ),
    ).toBe(true);
    expect(writtenByText(shown[2])).toContain('admission not shown by this record alone');
  });
});
