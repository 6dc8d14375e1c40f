import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../cli/exit-codes';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const LINEAGE = testLineageId('lin-out-file');
const HOSTILE_NAME = 'out-\u001b[31m\u001b]0;title\u0007.json';
const dirs: string[] = [];

/** A stack holding one integrated record of {@link LINEAGE}, run from a fresh directory. */
async function oneRecord() {
  const s = integratedStack({ signLineageCheckpoints: false });
  await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
  await s.integrate();
  const cwd = await mkdtemp(join(tmpdir(), 'reseal-out-'));
  dirs.push(cwd);
  return { cwd, connect: async () => s.client() };
}

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true });
});

// docs/cli.md, "Untrusted data": what was typed is shown escaped; a file that cannot be written is bad input.
describe('export and report --out: the file name as typed', () => {
  it.each([
    ['export', ['export', '--lineage', LINEAGE]],
    ['export --receipt', ['export', '--lineage', LINEAGE, '--receipt', '--seq', '0']],
    ['report', ['report', '--lineage', LINEAGE]],
  ])('%s: a name holding escape sequences is written as given and shown escaped', async (_name, argv) => {
    const io = await oneRecord();
    const result = await runCli([...argv, '--out', HOSTILE_NAME], io);
    expect(result.exitCode, result.stderr).toBe(ExitCode.OK);
    expect(await readdir(io.cwd)).toContain(HOSTILE_NAME);
    expect(result.stderr).toContain('out-\\u001b[31m\\u001b]0;title\\u0007.json');
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).not.toContain('\u0007');
  });

  it.each([
    ['export', ['export', '--lineage', LINEAGE]],
    ['export --receipt', ['export', '--lineage', LINEAGE, '--receipt', '--seq', '0']],
  ])('%s: a directory is bad input (exit 2) naming the option, not an unexpected failure', async (_name, argv) => {
    const io = await oneRecord();
    const result = await runCli([...argv, '--out', io.cwd], io);
    expect(result.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(result.stderr).toBe(`error: --out ${io.cwd}: cannot write (EISDIR)\n`);
  });
});
