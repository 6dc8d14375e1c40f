import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as pkg from '../../../client/index';
import type { TriageCompletedDetail } from '../../../shared/pipeline/triage-completed-detail';
import { startInProcessStack } from './in-process-reseal';

// docs/cli.md's client example (`agent.mjs`), which test/integration/package.test.ts runs twice
// against the emulator from an installed tarball. Here it runs as written against the pipeline in
// process, its `'reseal'` import bound to the package's exports with `connectToStack` in process.
const ROOT = join(import.meta.dirname, '..', '..', '..');
const SHIM = join(import.meta.dirname, 'in-process-reseal.ts');

/** The first `js` code block of docs/cli.md's client section, as the integration test extracts it. */
async function clientExample(): Promise<string> {
  const doc = await readFile(join(ROOT, 'docs', 'cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf("## The agent client (`import … from 'reseal'`)"));
  const match = /```js\n([\s\S]*?)\n```/.exec(section);
  if (!match?.[1]) throw new Error('docs/cli.md: no js example in the agent client section');
  return match[1];
}

/** The names the example imports from `'reseal'`. */
function importedNames(code: string): string[] {
  const match = /import\s*\{([^}]*)\}\s*from\s*'reseal';/.exec(code);
  if (!match?.[1]) throw new Error("the example imports nothing from 'reseal'");
  return match[1]
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

let dir = '';
let runs = 0;
let lines: string[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-docs-example-'));
  lines = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** Runs the example once, as `node agent.mjs` would; resolves what it printed. */
async function runExample(code: string): Promise<string[]> {
  const file = join(dir, `agent-${++runs}.mjs`);
  await writeFile(file, code.replace("from 'reseal';", `from ${JSON.stringify(pathToFileURL(SHIM).href)};`));
  const before = lines.length;
  await import(pathToFileURL(file).href);
  return lines.slice(before);
}

describe("docs/cli.md's client example", () => {
  it('imports only names the package exports, and acts on the client-checked recall, not the stored report', async () => {
    const code = await clientExample();
    for (const name of importedNames(code)) expect(Object.keys(pkg), name).toContain(name);
    expect(importedNames(code)).toContain('FileCheckpointStore');
    expect(code).toMatch(/new FileCheckpointStore\(/);
    expect(code).toMatch(/connectToStack\(\{[^}]*checkpointStore/);
    expect(code).toMatch(/client\.waitForOutcome\(/);
    expect(code).toMatch(/client\.recall\(/);
    expect(code).toContain("recall.verdict !== 'VERIFIED_INTACT'");
    expect(code).toContain('recall.delta');
    // The unproven halves of a recall, and the stored report, are not what it acts on.
    expect(code).not.toMatch(/requestRecall|waitForTriageReport|\.report\b/);
  });

  it('runs as written twice in a row, keeping the signed checkpoint in its file between runs', async () => {
    startInProcessStack({ dir });
    const code = await clientExample();
    for (let run = 0; run < 2; run++) {
      const out = await runExample(code);
      expect(out[0]).toMatch(new RegExp(`^sealed r-[0-9a-f-]{36} at seq ${run}$`));
      expect(out).toContain('recall VERIFIED_INTACT NO_DRIFT keep node-build-works');
      // The write's proven checkpoint was kept before the recall, so truncation was checked.
      expect(out).toContain(`proof ${run + 1} records, truncation checked true`);
      expect(out).toContain('lineage VERIFIED_INTACT');
      const kept = JSON.parse(await readFile(join(dir, '.reseal', 'checkpoints.json'), 'utf8')) as {
        checkpoints: Record<string, string>;
      };
      const notes = Object.values(kept.checkpoints);
      expect(notes).toHaveLength(1);
      // The lineage is the example key's own: `agent-7.<its policy digest>`.
      expect(notes[0]).toMatch(new RegExp(`/agent-7\\.[0-9a-f]{32}\n${run + 1}\n`));
    }
  });

  it('never acts on a forged triage answer: it stops instead of printing a verdict', async () => {
    // A table writer replaces triage's answer with one that claims NO_DRIFT but carries no proof.
    startInProcessStack({
      dir,
      forgeAnswer: (answer): TriageCompletedDetail => ({ ...answer, proof: null }),
    });
    const error = await runExample(await clientExample()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^recall not proven: UNVERIFIED_TAMPER_RISK: /);
    expect(lines.some((line) => line.startsWith('recall'))).toBe(false);
  });
});
