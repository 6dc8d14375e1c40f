import { describe, expect, it } from 'vitest';
import { ResealClient } from '../../../client/reseal-client';
import type { LineageStore } from '../../../shared/ports/lineage-store';
import { type RecordHeader, recordHashOf } from '../../../shared/seal/record-header';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { integratedStack, witnessedTestPolicy } from '../../helpers/integrated-stack';
import { TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { rolledBackLineage } from '../../helpers/rolled-back-lineage';
import { testAnchor } from '../../helpers/seal-factories';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-index-walk');
const AUTHENTICATIONS = ['signed-tree', 'macs'] as const;

/** A stack whose sealer signs no lineage checkpoint: every head item carries the head-state MAC alone. */
async function unsignedStack(sealed: number, integrated: number) {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < sealed; i++) {
    await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
    if (i === integrated - 1) await s.integrate();
  }
  expect((await s.store.logHead(LINEAGE))?.checkpoint).toBeNull();
  return s;
}

// docs/verifiable-log.md, "Verifying a whole lineage": a head item without a signed lineage
// checkpoint ties the walk to the tree head the index holds (docs/deployment-log.md, "What
// changes for the sealer", migration step 2).
describe('whole-lineage walks of heads without a signed lineage checkpoint: the tree head from the index', () => {
  it('every record integrated: VERIFIED_INTACT by the index entry (signed tree and MAC audit), freshness PROVEN', async () => {
    const s = await unsignedStack(3, 3);
    const client = s.client();
    for (const authentication of AUTHENTICATIONS) {
      const walked = await client.verifyStoredLineage(LINEAGE, { authentication });
      expect(walked.verification.verdict).toBe('VERIFIED_INTACT');
      expect(walked.log).toMatchObject({ size: 3, vouchedBy: 'index' });
      expect(walked.indexed).toMatchObject({ state: 'PROVEN', awaitingFromSeq: null, deploymentCheckpointSize: 1 });
      expect(walked.freshness?.state).toBe('PROVEN');
      expect(walked.verification.head?.seq).toBe(2);
    }
    const { walked } = await client.readVerifiedLineage(LINEAGE);
    expect(walked.verification.verdict).toBe('VERIFIED_INTACT');
    expect(walked.freshness?.state).toBe('PROVEN');
  });

  it('records sealed past the indexed tree head are sealed, awaiting integration: not VERIFIED_INTACT, not a tamper finding', async () => {
    const s = await unsignedStack(4, 2);
    const client = s.client();
    for (const authentication of AUTHENTICATIONS) {
      const walked = await client.verifyStoredLineage(LINEAGE, { authentication });
      const { verification } = walked;
      expect(verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
      expect(walked.indexed).toMatchObject({ state: 'SEALED_AWAITING_INTEGRATION', awaitingFromSeq: 2 });
      expect(walked.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
      expect(verification.firstFailure).toMatchObject({ seq: 2, verdict: 'UNVERIFIED_TAMPER_RISK' });
      expect(verification.firstFailure?.reason).toMatch(
        /^sealed, awaiting integration: past the tree head the index holds \(2 records/,
      );
      expect(verification.records.map((r) => r.verdict)).toEqual([
        'VERIFIED_INTACT',
        'VERIFIED_INTACT',
        'UNVERIFIED_TAMPER_RISK',
        'UNVERIFIED_TAMPER_RISK',
      ]);
      // The head is the last integrated record; a record awaiting integration names no writer.
      expect(verification.head?.seq).toBe(1);
      expect(verification.records[2]?.writtenBy).toBeUndefined();
      expect(verification.records[1]?.writtenBy).toBeDefined();
    }
    await s.integrate();
    expect((await client.verifyStoredLineage(LINEAGE)).verification.verdict).toBe('VERIFIED_INTACT');
  });

  it('a lineage nothing has integrated yet: every record awaits integration, no head', async () => {
    const s = await unsignedStack(2, 0);
    const walked = await s.client().verifyStoredLineage(LINEAGE);
    expect(walked.indexed).toMatchObject({ state: 'SEALED_AWAITING_INTEGRATION', awaitingFromSeq: 0 });
    expect(walked.verification.head).toBeNull();
    expect(walked.verification.records.every((r) => r.verdict === 'UNVERIFIED_TAMPER_RISK')).toBe(true);
  });

  it('a table showing fewer records than the index holds (genuine records and head put back) is NOT_NEWEST: UNVERIFIED_TAMPER_RISK', async () => {
    const s = await rolledBackLineage(LINEAGE, null, { signLineageCheckpoints: false });
    const client = s.client();
    for (const authentication of AUTHENTICATIONS) {
      const walked = await client.verifyStoredLineage(LINEAGE, { authentication });
      expect(walked.verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
      expect(walked.verification.firstFailure?.reason).toMatch(
        /NOT_NEWEST: the walk ends at seq 0 but the index holds 2/,
      );
      expect(walked.freshness?.state).toBe('NOT_NEWEST');
    }
    // Without MACs, nothing of a walk that failed to prove its prefix is called intact.
    const signedTree = await client.verifyStoredLineage(LINEAGE, { authentication: 'signed-tree' });
    expect(signedTree.verification.records.every((r) => r.verdict !== 'VERIFIED_INTACT')).toBe(true);
  });

  it('an integrated record rewritten with consistent hashes (no MAC recomputed) is HASH_MISMATCH: the walked root is not the indexed root', async () => {
    const s = await unsignedStack(2, 2);
    let recordHash = '';
    s.store.tamperRecord(LINEAGE, 1, (record) => {
      const header = record.header as RecordHeader;
      const edited = { ...header, sealedAtMs: header.sealedAtMs + 1 };
      record.header = edited;
      record.sealedAtMs = edited.sealedAtMs;
      recordHash = recordHashOf(edited);
      record.recordHash = recordHash;
    });
    const head = await s.store.head(LINEAGE);
    if (head) s.store.setHead({ ...head, recordHash });
    const signedTree = await s.client().verifyStoredLineage(LINEAGE, { authentication: 'signed-tree' });
    expect(signedTree.verification.verdict).toBe('HASH_MISMATCH');
    expect(signedTree.verification.firstFailure?.reason).toMatch(/not the leaves of the tree head the index holds/);
    // Nothing of a walk that failed to prove its prefix is called intact.
    expect(signedTree.verification.records.every((r) => r.verdict !== 'VERIFIED_INTACT')).toBe(true);
    expect((await s.client().verifyStoredLineage(LINEAGE, { authentication: 'macs' })).verification.verdict).toBe(
      'HASH_MISMATCH',
    );
  });

  it('a deployment chain the policy refuses proves no tree head: UNVERIFIED_TAMPER_RISK, REFUSED (fail closed)', async () => {
    const s = await unsignedStack(2, 2);
    const walked = await s
      .client({ deps: { policy: await witnessedTestPolicy() } })
      .verifyStoredLineage(LINEAGE, { authentication: 'signed-tree' });
    expect(walked.verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(walked.indexed?.state).toBe('REFUSED');
    expect(walked.freshness?.state).toBe('REFUSED');
    expect(walked.verification.records.every((r) => r.verdict !== 'VERIFIED_INTACT')).toBe(true);
  });

  it('a client that reads no deployment log cannot authenticate such a lineage: UNVERIFIED_TAMPER_RISK', async () => {
    const s = await unsignedStack(2, 2);
    const client = new ResealClient(TEST_CLIENT_OUTPUTS, {
      ...TEST_CLIENT_KEYS,
      store: s.store as unknown as LineageStore,
      anchor: testAnchor(),
    });
    const walked = await client.verifyStoredLineage(LINEAGE, { authentication: 'signed-tree' });
    expect(walked.verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(walked.verification.firstFailure?.reason).toMatch(/reads no deployment log/);
  });
});
