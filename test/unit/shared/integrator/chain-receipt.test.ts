import { describe, expect, it } from 'vitest';
import { LogVerificationError, NotIntegratedError } from '../../../../client/errors';
import { type ChainReceipt, verifyChainReceipt } from '../../../../shared/integrator/chain-receipt';
import { formatOneReceipt } from '../../../helpers/format-one-receipt';
import { markerKey } from '../../../helpers/in-memory-lineage-store';
import {
  cosignedByTestWitness,
  integratedStack,
  unwitnessedTestPolicy,
  witnessedTestPolicy,
} from '../../../helpers/integrated-stack';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-chain-receipt');

/** A lineage of 3 records, integrated, and (for a witnessed policy) its published note cosigned `agoSeconds` before the clock. */
async function integrated(options: { cosignedAgo?: number } = {}) {
  const s = integratedStack();
  for (const r of ['r-0', 'r-1', 'r-2'])
    expect((await s.send({ lineageId: LINEAGE, residualId: r })).kind).toBe('SEALED');
  await s.integrate();
  const nowSeconds = Math.floor(s.clock.now / 1000);
  if (options.cosignedAgo !== undefined) {
    const head = s.deployment.head;
    if (!head?.published) throw new Error('nothing published');
    s.deployment.head = {
      ...head,
      published: await cosignedByTestWitness(head.published, nowSeconds - options.cosignedAgo),
    };
  }
  return { s, nowSeconds };
}

const edit = (receipt: ChainReceipt, change: (r: ChainReceipt) => void): unknown => {
  const copy = structuredClone(receipt);
  change(copy);
  return copy;
};

// Receipts of format 2 (docs/verifiable-log.md, "Receipts"): the record, its inclusion in the
// lineage head the index holds, the index proofs and the deployment checkpoint, checked offline
// with a tlog-policy; never a lineage checkpoint.
describe('receipts with the whole deployment chain (formatVersion 2)', () => {
  it('an integrated record: the receipt verifies with the unwitnessed policy, and carries no lineage checkpoint', async () => {
    const { s, nowSeconds } = await integrated();
    const receipt = await s.client().chainReceipt(LINEAGE, 1);
    expect(receipt.formatVersion).toBe(2);
    expect(receipt.inclusion).toMatchObject({ leafIndex: 1, treeSize: 3 });
    expect(JSON.stringify(receipt)).not.toContain(`${LINEAGE}\n`); // no lineage checkpoint body
    const checked = verifyChainReceipt(receipt, {
      policy: unwitnessedTestPolicy().policy,
      nowSeconds,
      maxAgeSeconds: null,
    });
    expect(checked).toMatchObject({ verdict: 'VERIFIED_INTACT', refusal: null, freshnessChecked: false });
    expect(checked.record?.header.residualId).toBe('r-1');
  });

  it('a record sealed after the last integration has no receipt yet: NotIntegratedError (retryable)', async () => {
    const { s } = await integrated();
    await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    const error = await s
      .client()
      .chainReceipt(LINEAGE, 3)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotIntegratedError);
    expect((error as NotIntegratedError).retryable).toBe(true);
  });

  it('witnessed: fresh cosignatures pass --max-age; the same receipt later fails it (COSIGNATURES_TOO_OLD) but still proves inclusion without one', async () => {
    const { s, nowSeconds } = await integrated({ cosignedAgo: 10 });
    const policy = await witnessedTestPolicy();
    const receipt = await s.client({ deps: { policy } }).chainReceipt(LINEAGE, 2);
    const at = (now: number, maxAgeSeconds: number | null) =>
      verifyChainReceipt(receipt, { policy: policy.policy, nowSeconds: now, maxAgeSeconds });
    expect(at(nowSeconds, 180)).toMatchObject({ verdict: 'VERIFIED_INTACT', freshnessChecked: true });
    expect(at(nowSeconds, 180).deployment?.quorumTime).toBe(nowSeconds - 10);
    expect(at(nowSeconds + 1000, 180)).toMatchObject({
      verdict: 'UNVERIFIED_TAMPER_RISK',
      refusal: 'COSIGNATURES_TOO_OLD',
    });
    expect(at(nowSeconds + 1000, null)).toMatchObject({ verdict: 'VERIFIED_INTACT', freshnessChecked: false });
  });

  it('refuses an edited index proof, an edited index value, a wrong deployment checkpoint, an edited record and another tree', async () => {
    const { s, nowSeconds } = await integrated();
    const client = s.client();
    const receipt = await client.chainReceipt(LINEAGE, 1);
    const policy = unwitnessedTestPolicy().policy;
    const check = (r: unknown) => verifyChainReceipt(r, { policy, nowSeconds, maxAgeSeconds: null });
    const flip = (h: string) => `${h[0] === '0' ? '1' : '0'}${h.slice(1)}`;
    const sibling = receipt.index.lineage.proof.siblings.findIndex((x) => x !== null);
    expect(
      check(
        edit(receipt, (r) => {
          r.index.lineage.proof.siblings[sibling] = flip(r.index.lineage.proof.siblings[sibling] as string);
        }),
      ),
    ).toMatchObject({ verdict: 'UNVERIFIED_TAMPER_RISK', refusal: 'INDEX_PROOF_INVALID' });
    expect(
      check(
        edit(receipt, (r) => {
          r.index.residual.value = { seq: 2, recordHash: r.index.residual.value.recordHash };
        }),
      ),
    ).toMatchObject({ verdict: 'UNVERIFIED_TAMPER_RISK', refusal: 'INDEX_PROOF_INVALID' });
    // A later deployment checkpoint with this receipt's index root: that root is not its last leaf.
    await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    await s.integrate();
    const later = s.deployment.head?.published as string;
    expect(
      check(
        edit(receipt, (r) => {
          r.deployment.checkpoint = later;
        }),
      ),
    ).toMatchObject({ verdict: 'UNVERIFIED_TAMPER_RISK', refusal: 'LEAF_NOT_LAST' });
    expect(
      check(
        edit(receipt, (r) => {
          (r.record as { payload: unknown }).payload = { edited: true };
        }),
      ),
    ).toMatchObject({ verdict: 'HASH_MISMATCH' });
    // The record's proof in the lineage's own (larger) tree is not a proof in the indexed head.
    const v1 = await formatOneReceipt(client, LINEAGE, 1);
    expect(
      check(
        edit(receipt, (r) => {
          r.inclusion = v1.inclusion;
        }),
      ),
    ).toMatchObject({ verdict: 'LINEAGE_BROKEN' });
  });

  it('a record whose residual id the index maps to another record (sealed twice) gets no receipt: LINEAGE_BROKEN', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.send({ lineageId: LINEAGE, residualId: 'r-1' });
    s.store.markers.delete(markerKey(LINEAGE, 'r-1'));
    // Only a sealer without the index floor seals it again (docs/sealing.md, "The index floor").
    await s.sendUnfloored({ lineageId: LINEAGE, residualId: 'r-1' });
    await s.integrate();
    const client = s.client();
    expect((await client.chainReceipt(LINEAGE, 1)).index.residual.value.seq).toBe(1);
    const error = await client.chainReceipt(LINEAGE, 2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LogVerificationError);
    expect(error).toMatchObject({ verdict: 'LINEAGE_BROKEN' });
    expect((error as LogVerificationError).reason).toMatch(/maps residual r-1 to seq 1/);
  });

  it('refuses a receipt under a policy of another log (POLICY_NOT_MET), and a malformed one as HASH_MISMATCH', async () => {
    const { s, nowSeconds } = await integrated();
    const receipt = await s.client().chainReceipt(LINEAGE, 0);
    const other = (await witnessedTestPolicy()).policy;
    expect(verifyChainReceipt(receipt, { policy: other, nowSeconds, maxAgeSeconds: 180 })).toMatchObject({
      verdict: 'UNVERIFIED_TAMPER_RISK',
      refusal: 'POLICY_NOT_MET',
    });
    expect(
      verifyChainReceipt({ ...receipt, extra: 1 }, { policy: other, nowSeconds, maxAgeSeconds: null }).verdict,
    ).toBe('HASH_MISMATCH');
  });
});
