import { describe, expect, it, type TestContext } from 'vitest';
import type { HeadKeyMac } from '../../../../shared/log/head-key-mac';
import type { StoredLogHead } from '../../../../shared/log/log-state';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { HEAD_KEY_MAC_TAMPERS } from '../../../helpers/head-key-mac-tampers';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
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
  const head = (lineageId: string) => s.store.headSnapshot(lineageId) as StoredLogHead;
  return { ...s, older, rollBack, head, keyMacOf, setKeyMac, next };
}

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

  for (const tamper of HEAD_KEY_MAC_TAMPERS) {
    it(tamper.name, async (context) => {
      const s = await sealed();
      await tamper.apply(s, A, B);
      row(context, tamper.attack, 'CONFLICT LINEAGE_INCONSISTENT', await s.next());
    });
  }

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
