import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../cli/exit-codes';
import { FileCheckpointStore } from '../../../client/file-checkpoint-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const LINEAGE = testLineageId('lin-store-file');
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true });
});

// docs/cli.md, "Exit codes": an input file that cannot be read is bad input (exit 2); the store is
// never reset (docs/verifiable-log.md, "Checkpoints the client keeps").
describe('--checkpoint-store naming a file that is no checkpoint store', () => {
  it.each([
    ['not JSON', 'root:x:0:0:root:/root:/bin/bash\n', 'not JSON'],
    ['another JSON shape', '{"a":1}', 'not a checkpoint file'],
  ])('%s: exit 2, one line naming the file, the file left as it was', async (_name, content, reason) => {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    const cwd = await mkdtemp(join(tmpdir(), 'reseal-store-file-'));
    dirs.push(cwd);
    const path = join(cwd, 'store.json');
    await writeFile(path, content);
    const connect = async () => s.client({ deps: { checkpointStore: new FileCheckpointStore(path) } });
    const result = await runCli(['verify', '--lineage', LINEAGE], { cwd, connect });
    expect(result.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(result.stderr).toMatch(new RegExp(`^error: checkpoint store ${path}: ${reason}.*: repair or restore it`));
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(await readFile(path, 'utf8')).toBe(content);
  });
});
