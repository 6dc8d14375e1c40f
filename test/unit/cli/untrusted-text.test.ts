import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResealClient } from '../../../client/reseal-client';
import type { RejectionRecord } from '../../../shared/ports/lineage-store';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { expectGuarantee } from '../../helpers/guarantees';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { staleEpochConflict, staleRejection } from '../../helpers/outcome-factories';
import { appendSealed, TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';
import { HOSTILE_ID, HOSTILE_TEXT, hostileLinePlacement, hostileTextPlacement } from '../../helpers/untrusted-text';
import { runCli } from './run-cli';

// docs/cli.md, "Untrusted data": `reseal inspect --lineage` prints a table writer's text only in
// its untrusted section (text) or field (--json), escaped.

const FIXTURES = join(import.meta.dirname, 'fixtures');

/** A lineage of 3 records, the last with its header ids edited, and hostile unsigned refusals. */
async function hostileLineage() {
  const store = new InMemoryLineageStore();
  await appendSealed(store, (await buildChain(3)).records);
  store.tamperRecord(TEST_LINEAGE_ID, 2, (record) => {
    const header = record.header as Record<string, unknown>;
    header.sessionId = HOSTILE_TEXT;
    header.residualId = HOSTILE_ID;
  });
  const rejection: RejectionRecord = staleRejection(HOSTILE_ID, {
    messageId: HOSTILE_TEXT,
    reason: HOSTILE_TEXT as never,
    rejectedVariables: [{ name: HOSTILE_TEXT, reason: HOSTILE_TEXT, detail: HOSTILE_TEXT }],
    issues: [{ path: HOSTILE_TEXT, message: HOSTILE_TEXT }],
    atMs: TEST_NOW_MS + 1,
  });
  await store.recordRejection(rejection);
  await store.recordConflict(staleEpochConflict(HOSTILE_ID, { detail: HOSTILE_TEXT, atMs: TEST_NOW_MS + 2 }));
  const client = new ResealClient(TEST_CLIENT_OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor: testAnchor() });
  return (json: boolean) =>
    runCli(['inspect', '--lineage', TEST_LINEAGE_ID, ...(json ? ['--json'] : [])], {
      cwd: FIXTURES,
      connect: async () => client,
    });
}

const ATTACK =
  'edit a record header and insert an unsigned rejection and conflict, their text holding ANSI codes, CR/LF, U+2028, bidi overrides and an instruction';

describe('reseal inspect --lineage: planted text only in the untrusted section, escaped', () => {
  it('text: nothing of it above the untrusted section; escaped in it', async (context) => {
    const inspect = await hostileLineage();
    const result = await inspect(false);
    expect(result.exitCode).toBe(20);
    expect(result.stdout).toMatch(/^untrusted \(3\): data from storage/m);
    expect(result.stdout).toContain('\\u001b[2J');
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'record, rejection, conflict',
        attack: ATTACK,
        reader: 'inspect --lineage (text, in process)',
        expected: 'only in the untrusted section, escaped',
      },
      hostileLinePlacement(result.stdout),
    );
  });

  it('--json: nothing of it outside untrusted; escaped in it', async (context) => {
    const inspect = await hostileLineage();
    const result = await inspect(true);
    expect(result.exitCode).toBe(20);
    const out = JSON.parse(result.stdout);
    expect(out.records[2]).toMatchObject({ seq: 2, sessionId: null, residualId: null });
    expect(out.untrusted.records).toEqual([expect.objectContaining({ seq: 2, residualId: HOSTILE_ID })]);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'record, rejection, conflict',
        attack: ATTACK,
        reader: 'inspect --lineage --json (in process)',
        expected: 'only in untrusted, escaped',
      },
      hostileTextPlacement(out),
    );
  });
});
