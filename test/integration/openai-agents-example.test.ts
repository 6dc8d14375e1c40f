import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { connectToStack } from '../../client/connect';
import { MemoryCheckpointStore } from '../../client/memory-checkpoint-store';
import { clientOutputsFrom } from '../../client/stack-outputs';
import { emulatorEnv, STACK_NAME } from '../../scripts/emulator/deploy';
import { keptCheckpointOrigins } from '../helpers/kept-checkpoint-origins';

// The OpenAI Agents SDK example (examples/openai-agents-session/, docs/frameworks.md) as a user
// runs it: the SDK's run loop with its scripted model (no model call), against the deployed stack.
const stack = inject('stack');
const endpoint = inject('endpoint');
const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('examples/openai-agents-session', () => {
  it('runs: two turns sealed item by item, the second fed the proven history, a pop sealed as a tombstone', async () => {
    const state = await mkdtemp(join(tmpdir(), 'reseal-openai-agents-'));
    dirs.push(state);
    const { stdout } = await run(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
        join('examples', 'openai-agents-session', 'support-agent.ts'),
        '--state',
        state,
        '--stack',
        STACK_NAME,
      ],
      {
        cwd: ROOT,
        timeout: 300_000,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? state, ...emulatorEnv(endpoint) },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const lineageId = /^lineage (\S+)$/m.exec(stdout)?.[1];
    expect(lineageId, stdout).toMatch(/^support-bot\./);
    expect(stdout).toContain('turn 1: Noted: your order number is 7.');
    expect(stdout).toContain('turn 2: Your order number is 7.');
    // user, assistant, user: the first turn's two items came back from the lineage.
    expect(stdout).toContain('turn 2 model input: 3 items from the proven history');
    expect(stdout).toContain('sealed items: 4 this run, 4 in the history');
    expect(stdout).toContain('history after pop: 3 items, verified');

    // Five records: four items and the tombstone, every one proven; nothing of a lineage checkpoint kept in --state.
    const { client } = await connectToStack({
      outputs: clientOutputsFrom({ ...stack }),
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      checkpointStore: new MemoryCheckpointStore(),
    });
    const verified = await client.verifyStoredLineage(lineageId as string);
    expect(verified.verification.verdict).toBe('VERIFIED_INTACT');
    expect(verified.log?.size).toBe(5);
    // No signed lineage checkpoint to keep (docs/deployment-log.md, "What changes for the sealer", step 3):
    // --state keeps only the deployment checkpoint the example's reads authenticated
    // (docs/verifiable-log.md, "Checkpoints the client keeps").
    expect(keptCheckpointOrigins(join(state, 'checkpoints.json'))).toEqual([stack.LogName]);
  });
});
