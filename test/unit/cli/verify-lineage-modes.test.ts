import { tmpdir } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { ExitCode } from '../../../cli/exit-codes';
import { ResealClient } from '../../../client/reseal-client';
import { lineageHeadOf } from '../../../shared/seal/lineage-head';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { lineageSealedBySealer, TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { FACTORY_LINEAGE_ID } from '../../helpers/guard-factories';
import type { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { forgerAnchor, resealRecord, testManifest } from '../../helpers/seal-factories';
import { runCli } from './run-cli';

const LINEAGE = FACTORY_LINEAGE_ID;

async function setup() {
  const { store, anchor } = await lineageSealedBySealer(3, testManifest());
  const verifyMac = vi.spyOn(anchor, 'verifyMac');
  const options = {
    cwd: tmpdir(),
    connect: async () => new ResealClient(TEST_CLIENT_OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor }),
  };
  return { store, verifyMac, options };
}

/**
 * Replaces the last record with one forged without the MAC key, and moves the head item onto it.
 * The edit is outside the writer's signature (the seal time), so the signed tree is what refuses it.
 */
async function forgeLast(store: InMemoryLineageStore): Promise<void> {
  const stored = JSON.parse(store.records.get(LINEAGE)?.get(2) ?? '') as SealedRecord;
  const forged = await resealRecord(stored, { header: { sealedAtMs: stored.header.sealedAtMs + 1 } }, forgerAnchor());
  store.records.get(LINEAGE)?.set(2, JSON.stringify(forged));
  store.setHead(lineageHeadOf(forged));
}

describe('docs/verifiable-log.md "Verifying a whole lineage": verify --lineage by the signed tree or by the MAC audit', () => {
  it('by default, proves every record in the signed tree with no VerifyMac, and says so in --json and in text', async () => {
    const { verifyMac, options } = await setup();
    const json = await runCli(['verify', '--lineage', LINEAGE, '--json'], options);
    expect(json.exitCode).toBe(ExitCode.OK);
    expect(JSON.parse(json.stdout)).toMatchObject({
      verdict: 'VERIFIED_INTACT',
      recordsChecked: 3,
      authenticatedBy: 'signed-tree',
      macCheck: 'signed-tree',
    });
    const text = await runCli(['verify', '--lineage', LINEAGE], options);
    expect(text.stdout).toMatch(/authenticated by:\s+the signed tree/);
    expect(verifyMac).not.toHaveBeenCalled();
  });

  it('--audit-macs checks every MAC with the anchor, one call per record, and says so', async () => {
    const { verifyMac, options } = await setup();
    const run = await runCli(['verify', '--lineage', LINEAGE, '--audit-macs', '--json'], options);
    expect(run.exitCode).toBe(ExitCode.OK);
    expect(JSON.parse(run.stdout)).toMatchObject({ authenticatedBy: 'macs', macCheck: 'kms' });
    expect(verifyMac).toHaveBeenCalledTimes(3);
  });

  it('a record forged without the MAC key, its head item moved onto it, is caught by the signed tree without a MAC call', async () => {
    const { store, verifyMac, options } = await setup();
    await forgeLast(store);
    const run = await runCli(['verify', '--lineage', LINEAGE, '--json'], options);
    expect(run.exitCode).toBe(ExitCode.TAMPER);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ verdict: 'HASH_MISMATCH', authenticatedBy: 'signed-tree' });
    // No record is called intact and no head verified: nothing authenticated them (the forged one least of all).
    expect(report.records.length).toBeGreaterThan(0);
    for (const record of report.records) expect(record.verdict).not.toBe('VERIFIED_INTACT');
    expect(report.verifiedHead).toBeNull();
    expect(verifyMac).not.toHaveBeenCalled();
    // The MAC audit catches it too, by its MAC.
    const audit = await runCli(['verify', '--lineage', LINEAGE, '--audit-macs', '--json'], options);
    expect(JSON.parse(audit.stdout)).toMatchObject({ verdict: 'HASH_MISMATCH' });
  });

  it('--audit-macs without --lineage is bad input', async () => {
    const { options } = await setup();
    const run = await runCli(['verify', '--export', 'x.json', '--audit-macs'], options);
    expect(run.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(run.stderr).toContain('--audit-macs applies to --lineage only');
  });
});
