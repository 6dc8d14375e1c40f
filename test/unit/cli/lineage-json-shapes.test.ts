import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ExitCode } from '../../../cli/exit-codes';
import { ExportShape } from '../../../client/shapes/export-shape';
import { ReportShape } from '../../../client/shapes/report-shape';
import { TimelineShape } from '../../../client/shapes/timeline-shape';
import { VerificationShape } from '../../../client/shapes/verification-shape';
import { WriteRequestShape } from '../../../client/shapes/write-request-shape';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';
import { TEST_KEY_HEX, writeExportFixtures } from './exports';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');

/** `--json` output that is exactly `shape`: it parses, and parsing drops nothing (no field outside the shape). */
function expectShape<S extends z.ZodType>(shape: S, stdout: string): z.infer<S> {
  const out = JSON.parse(stdout);
  const parsed = shape.parse(out);
  expect(parsed).toEqual(out);
  return parsed;
}

let dir: string;
let checkpoint: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reseal-lineage-json-'));
  ({ checkpoint } = await writeExportFixtures(dir));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// docs/cli.md, "One shape per concept": verify, inspect and report --json are camelCase shapes
// of client/shapes/, tagged with their `format`.
describe('verify, inspect and report --json of an export are their client/shapes/ shape', () => {
  it('verify --export --json is reseal.verification/1: every record with its verdict and writer, the lineage-only fields null', async () => {
    const run = await runCli(
      ['verify', '--export', 'intact.json', '--local-key-hex', TEST_KEY_HEX, '--checkpoint', checkpoint, '--json'],
      { cwd: dir },
    );
    expect(run.exitCode).toBe(ExitCode.OK);
    const shape = expectShape(VerificationShape, run.stdout);
    expect(shape).toMatchObject({
      format: 'reseal.verification/1',
      verdict: 'VERIFIED_INTACT',
      recordsChecked: 4,
      macCheck: 'local-key',
      checkpoint: { source: '--checkpoint' },
      authenticatedBy: null,
      freshness: null,
      treeHead: null,
      awaitingIntegrationFromSeq: null,
    });
    expect(shape.records.map((r) => [r.seq, r.verdict, r.writtenBy?.status])).toEqual([
      [0, 'VERIFIED_INTACT', 'UNATTRIBUTED'],
      [1, 'VERIFIED_INTACT', 'UNATTRIBUTED'],
      [2, 'VERIFIED_INTACT', 'UNATTRIBUTED'],
      [3, 'VERIFIED_INTACT', 'UNATTRIBUTED'],
    ]);
  });

  it('verify --export --json of an edited payload: the first failure named, no writer for the records that do not verify', async () => {
    const run = await runCli(['verify', '--export', 'payload-edited.json', '--local-key-hex', TEST_KEY_HEX, '--json'], {
      cwd: dir,
    });
    expect(run.exitCode).toBe(ExitCode.TAMPER);
    const shape = expectShape(VerificationShape, run.stdout);
    expect(shape.firstFailure).toMatchObject({ seq: 2, verdict: 'HASH_MISMATCH' });
    expect(shape.verifiedHead).toMatchObject({ seq: 1 });
    expect(shape.records.map((r) => r.writtenBy === null)).toEqual([false, false, true, true]);
  });

  it('inspect --export --json is reseal.timeline/1: the timeline records, nothing of a bad record outside untrusted', async () => {
    const run = await runCli(
      ['inspect', '--export', 'payload-edited.json', '--local-key-hex', TEST_KEY_HEX, '--json'],
      {
        cwd: dir,
      },
    );
    expect(run.exitCode).toBe(ExitCode.TAMPER);
    const shape = expectShape(TimelineShape, run.stdout);
    expect(shape).toMatchObject({
      format: 'reseal.timeline/1',
      verdict: 'HASH_MISMATCH',
      truncationChecked: null,
      freshness: null,
      rejections: [],
      conflicts: [],
    });
    expect(shape.records[1]).toMatchObject({ seq: 1, verification: 'VERIFIED_INTACT', residualId: expect.any(String) });
    expect(shape.records[2]).toMatchObject({ seq: 2, residualId: null, sealedAt: null, guardVerdictDigest: null });
    expect(shape.untrusted.records.map((r) => r.seq)).toEqual([2, 3]);
  });

  it('report --export --json is reseal.report/1: the page data, times as ISO 8601 UTC', async () => {
    const run = await runCli(['report', '--export', 'intact.json', '--local-key-hex', TEST_KEY_HEX, '--json'], {
      cwd: dir,
    });
    expect(run.exitCode).toBe(ExitCode.OK);
    const shape = expectShape(ReportShape, run.stdout);
    expect(shape.format).toBe('reseal.report/1');
    expect(shape.generatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(shape.lineages[0]).toMatchObject({ verdict: 'VERIFIED_INTACT' });
    expect(shape.lineages[0]?.records.map((r) => r.sealedAt)).toEqual(
      Array(4).fill(expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/)),
    );
  });
});

describe('write-request and export --json', () => {
  it('write-request --json is reseal.write-request/1 around the very request it prints without --json', async () => {
    const argv = [
      'write-request',
      '--lineage',
      'agent-7',
      '--residual-id',
      'r-1',
      '--session',
      's-1',
      '--epoch',
      '1',
      '--payload',
      'claims.json',
      '--manifest',
      'manifest.json',
      '--boundary-at-ms',
      '1800000000000',
    ];
    const plain = await runCli(argv, { cwd: FIXTURES });
    const run = await runCli([...argv, '--json'], { cwd: FIXTURES });
    expect(run.exitCode, run.stderr).toBe(ExitCode.OK);
    const shape = expectShape(WriteRequestShape, run.stdout);
    expect(shape.format).toBe('reseal.write-request/1');
    expect(shape.request).toEqual(JSON.parse(plain.stdout));
  });

  it('export --out --json is reseal.export/1: what was written, the file in its own format', async () => {
    const lineage = testLineageId('lin-export-json');
    const s = integratedStack();
    for (const r of ['r-0', 'r-1', 'r-2']) await s.send({ lineageId: lineage, residualId: r });
    await s.integrate();
    const io = { cwd: dir, connect: async () => s.client() };
    const whole = await runCli(['export', '--lineage', lineage, '--out', 'l.json', '--json'], io);
    expect(whole.exitCode, whole.stderr).toBe(ExitCode.OK);
    expect(expectShape(ExportShape, whole.stdout)).toEqual({
      format: 'reseal.export/1',
      kind: 'lineage',
      lineageId: lineage,
      file: 'l.json',
      fileFormat: 'LineageExport',
      fileFormatVersion: 1,
      records: 3,
      seq: null,
    });
    expect(JSON.parse(readFileSync(join(dir, 'l.json'), 'utf8'))).toMatchObject({
      formatVersion: 1,
      lineageId: lineage,
    });
    const receipt = await runCli(
      ['export', '--lineage', lineage, '--receipt', '--seq', '1', '--out', 'r.json', '--json'],
      io,
    );
    expect(receipt.exitCode, receipt.stderr).toBe(ExitCode.OK);
    expect(expectShape(ExportShape, receipt.stdout)).toMatchObject({
      kind: 'receipt',
      fileFormat: 'reseal-receipt',
      fileFormatVersion: 2,
      records: 1,
      seq: 1,
    });
    expect(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'))).toMatchObject({ formatVersion: 2 });
    // The summary goes to stdout, so the export itself needs a file.
    const noOut = await runCli(['export', '--lineage', lineage, '--json'], io);
    expect(noOut.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(noOut.stderr).toContain('export --json: give --out <FILE.json>');
  });
});
