import { describe, expect, it, type TestContext } from 'vitest';
import { type HeadKeyMac, headKeyMac } from '../../../../shared/log/head-key-mac';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../../../shared/log/log-state';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { MemoryNoticeKey } from '../../../helpers/memory-notice-key';
import { testLineageId } from '../../../helpers/writer-factories';

const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-key-b')];

/**
 * Two writes to A and to B by the sealer (heads MAC'd under the in-memory notice key's data key,
 * no signed checkpoint), the first of each integrated (with `integrated`, both: then the index
 * holds A's head, and vouches for it exactly); `older` is A's head item after its first write. A
 * cold sealer (another container: nothing remembered) then takes A's head as it finds it: only its
 * head-key MAC vouches for a head the index does not hold.
 */
async function sealed(integrated = false) {
  const s = inProcessIntegration({ indexFloor: true, sealer: { signLineageCheckpoints: false } });
  await s.write(A, 'r-0');
  await s.write(B, 'r-0');
  await s.integrator().integrate(s.notices.splice(0));
  const older = s.store.headSnapshot(A) as StoredLogHead;
  const rollBack = s.store.lineageSnapshot(A);
  await s.write(A, 'r-1');
  await s.write(B, 'r-1');
  if (integrated) await s.integrator().integrate(s.notices.splice(0));
  const keyMacOf = (lineageId: string) => s.store.headSnapshot(lineageId)?.headKeyMac as HeadKeyMac;
  const setKeyMac = (headKeyMac: HeadKeyMac | null) => s.store.setLogHead(A, (log) => ({ ...log, headKeyMac }));
  /** The next write to A through a cold sealer: its outcome, as a row names it. */
  const next = async () => {
    s.coldSealer();
    const outcome = await s.seal({ lineageId: A, residualId: 'r-2' });
    return 'reason' in outcome ? `${outcome.kind} ${outcome.reason}` : outcome.kind;
  };
  return { ...s, older, rollBack, keyMacOf, setKeyMac, next };
}

const flip = (bytes: Uint8Array, at: number) => {
  const copy = Uint8Array.from(bytes);
  copy[at] = (copy[at] as number) ^ 1;
  return copy;
};

const row = (context: TestContext, attack: string, expected: string, observed: string) =>
  expectGuarantee(
    context,
    { section: 'tampering', target: 'head', attack, reader: 'cold sealer (next run, head-key MAC)', expected },
    observed,
  );

describe('tampering with a head-key MAC (headKeyMac, headDataKey), through a cold sealer (docs/verifiable-log.md, "Appending")', () => {
  it('none (control): the head is vouched for by its head-key MAC, the write sealed', async (context) => {
    const s = await sealed();
    row(context, 'none (control)', 'SEALED', await s.next());
  });

  it('the MAC edited (one bit)', async (context) => {
    const s = await sealed();
    const keyMac = s.keyMacOf(A);
    s.setKeyMac({ ...keyMac, mac: flip(keyMac.mac, 0) });
    row(context, 'edit headKeyMac', 'CONFLICT LINEAGE_INCONSISTENT', await s.next());
  });

  it('the wrapped data key edited (one bit): it opens to nothing', async (context) => {
    const s = await sealed();
    const keyMac = s.keyMacOf(A);
    const blob = Buffer.from(flip(Buffer.from(keyMac.keyBlob, 'base64'), 3)).toString('base64');
    s.setKeyMac({ ...keyMac, keyBlob: blob });
    row(context, 'edit headDataKey', 'CONFLICT LINEAGE_INCONSISTENT', await s.next());
  });

  it("another lineage's headKeyMac and headDataKey copied onto the head", async (context) => {
    const s = await sealed();
    s.setKeyMac(s.keyMacOf(B));
    row(
      context,
      "copy another lineage's headKeyMac and headDataKey onto the head",
      'CONFLICT LINEAGE_INCONSISTENT',
      await s.next(),
    );
  });

  it("an older head's headKeyMac and headDataKey of the same lineage copied onto the head", async (context) => {
    const s = await sealed();
    s.setKeyMac(s.older.headKeyMac as HeadKeyMac);
    row(
      context,
      "copy an older head's headKeyMac and headDataKey (same lineage) onto the head",
      'CONFLICT LINEAGE_INCONSISTENT',
      await s.next(),
    );
  });

  it('a genuine MAC of the head under a data key of another notice key (or another encryption context): it opens to nothing', async (context) => {
    const s = await sealed();
    const foreign = await new MemoryNoticeKey().dataKey();
    const state = headStateOf(claimedLogState(s.store.headSnapshot(A) as StoredLogHead, A));
    if (state === null) throw new Error('empty head');
    s.setKeyMac({ mac: headKeyMac(state, foreign.plaintext), keyBlob: foreign.blob });
    row(
      context,
      'headKeyMac under a data key the notice key did not wrap (another key or context)',
      'CONFLICT LINEAGE_INCONSISTENT',
      await s.next(),
    );
  });

  it('the MAC stripped (no headKeyMac, no headMac)', async (context) => {
    const s = await sealed();
    s.setKeyMac(null);
    row(context, 'strip headKeyMac', 'CONFLICT LINEAGE_INCONSISTENT', await s.next());
  });

  it('the whole lineage rolled back to its older head (its genuine head-key MAC) after the index took the newer: the index floor refuses it', async (context) => {
    const s = await sealed(true);
    s.rollBack();
    expect(s.store.headSnapshot(A)?.headKeyMac).toEqual(s.older.headKeyMac);
    row(
      context,
      'roll the lineage back to an older head with its genuine headKeyMac',
      'REJECTED LINEAGE_BEHIND_INDEX',
      await s.next(),
    );
  });
});
