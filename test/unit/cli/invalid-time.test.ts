import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { timelineJson } from '../../../cli/format/timeline-json';
import { timelineText } from '../../../cli/format/timeline-text';
import { writeOutcomeText } from '../../../cli/format/write-outcome-text';
import { ResealClient } from '../../../client/reseal-client';
import { writeOutcomeShape } from '../../../client/shapes/write-outcome-shape';
import { timelineRows } from '../../../client/timeline-rows';
import { isoTime } from '../../../shared/iso-time';
import type { OutcomeStatement } from '../../../shared/log/outcome-statement';
import { VerificationVerdict } from '../../../shared/seal/verification-verdict';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { staleEpochConflict, staleRejection } from '../../helpers/outcome-factories';
import { appendSealed, TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');
// Past the largest time a Date holds (±8.64e15 ms): new Date(1e17).toISOString() throws a RangeError.
const FORGED_MS = 1e17;
const INVALID = '(invalid time 100000000000000000)';

describe('times read from stored items are printed safely', () => {
  it('isoTime: ISO 8601 for a time a Date holds, "(invalid time …)" otherwise, never a throw', () => {
    expect(isoTime(TEST_NOW_MS)).toBe(new Date(TEST_NOW_MS).toISOString());
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(isoTime(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
    expect(isoTime(FORGED_MS)).toBe(INVALID);
    expect(isoTime(-FORGED_MS)).toBe('(invalid time -100000000000000000)');
    expect(isoTime(8.64e15 + 1)).toBe('(invalid time 8640000000000001)');
    expect(isoTime(Number.NaN)).toBe('(invalid time NaN)');
    expect(isoTime(Number.POSITIVE_INFINITY)).toBe('(invalid time Infinity)');
    expect(isoTime('soon' as unknown as number)).toBe('(invalid time soon)');
  });

  describe('reseal inspect --lineage with a forged rejection and conflict at atMs 1e17', () => {
    async function inspect(json: boolean) {
      const store = new InMemoryLineageStore();
      const { records } = await buildChain(2);
      await appendSealed(store, records);
      await store.recordRejection(staleRejection('r-forged', { atMs: FORGED_MS }));
      await store.recordConflict(staleEpochConflict('r-fenced', { atMs: FORGED_MS }));
      const client = new ResealClient(TEST_CLIENT_OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor: testAnchor() });
      return runCli(['inspect', '--lineage', TEST_LINEAGE_ID, ...(json ? ['--json'] : [])], {
        cwd: FIXTURES,
        connect: async () => client,
      });
    }

    it('text: the timeline and both items, the time shown as invalid; exit by the chain (0)', async () => {
      const result = await inspect(false);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain(
        `  rejection ${INVALID}  GUARD  STALE_STATE  residual r-forged  message m-r-forged  (NOT signed`,
      );
      expect(result.stdout).toContain(`  conflict ${INVALID}  STALE_EPOCH  residual r-fenced: `);
    });

    it('--json: rejectedAt and conflictedAt say the time is invalid', async () => {
      const result = await inspect(true);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const out = JSON.parse(result.stdout);
      expect(out.records).toHaveLength(2);
      // Unsigned: listed only in untrusted (docs/cli.md, "Untrusted data").
      expect(out.untrusted.rejections).toEqual([
        expect.objectContaining({ residualId: 'r-forged', rejectedAt: INVALID }),
      ]);
      expect(out.untrusted.conflicts).toEqual([
        expect.objectContaining({ residualId: 'r-fenced', conflictedAt: INVALID }),
      ]);
    });
  });

  it('reseal report --lineage with a forged unsigned rejection at atMs 1e20: the page shows the time as invalid and the rejection as not verified', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2);
    await appendSealed(store, records);
    await store.recordRejection(staleRejection('r-forged', { atMs: 1e20 }));
    const client = new ResealClient(TEST_CLIENT_OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor: testAnchor() });
    const result = await runCli(['report', '--lineage', TEST_LINEAGE_ID], {
      cwd: FIXTURES,
      connect: async () => client,
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const row = result.stdout.split('<tr>').find((r) => r.includes('r-forged'));
    expect(row).toContain('(invalid time 100000000000000000000)');
    expect(row).toContain('NOT verified: do not trust');
  });

  it('a record whose sealedAtMs is out of range (a verifier that let it pass): the timeline prints it as invalid', () => {
    const raw = { header: { monotonicSequenceNumber: 0, residualId: 'r-0' }, sealedAtMs: FORGED_MS };
    // A row that does not verify shows no stored time at all; one that does is formatted safely.
    const verification = {
      verdict: VerificationVerdict.VERIFIED_INTACT,
      records: [{ seq: 0, verdict: VerificationVerdict.VERIFIED_INTACT }],
      firstFailure: null,
    } as never;
    const rows = timelineRows([raw], verification);
    expect(timelineText('l', rows, verification)).toContain(INVALID);
    const items = { rows, rejections: [], conflicts: [] };
    const json = timelineJson('l', verification, items, { truncation: null, awaitingFromSeq: null });
    expect(json.records[0]?.sealedAt).toBe(INVALID);
  });

  it('publish --wait: a rejection or conflict outcome at an invalid time prints, in text and --json', () => {
    const statement = {} as OutcomeStatement;
    const rejected = { kind: 'REJECTED', rejection: staleRejection('r-1', { atMs: FORGED_MS }), statement } as const;
    const conflict = { kind: 'CONFLICT', conflict: staleEpochConflict('r-1', { atMs: FORGED_MS }), statement } as const;
    expect(writeOutcomeText(rejected)).toMatch(/^at: +\(invalid time 100000000000000000\)$/m);
    expect(writeOutcomeText(conflict)).toContain(INVALID);
    expect(writeOutcomeShape('l', 'r-1', rejected)).toMatchObject({ rejectedAt: INVALID });
    expect(writeOutcomeShape('l', 'r-1', conflict)).toMatchObject({ conflictedAt: INVALID });
  });
});
