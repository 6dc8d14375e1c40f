import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { emulatorEnv } from '../../scripts/emulator/deploy';
import { keptCheckpointOrigins } from '../helpers/kept-checkpoint-origins';

// The package as an agent's project gets it: `npm pack` (which builds dist/ first), installed
// from the tarball into a fresh project, then used from there with plain `node` only (no tsx,
// no TypeScript sources): the client and the core imported by name, the `reseal` bin, the docs'
// client example run twice against the deployed stack, and `reseal mcp` over stdio.
const stack = inject('stack');
const endpoint = inject('endpoint');
const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

let dir = '';
let project = '';

/** Runs a command in the consumer project with the emulator's credentials; resolves its output. */
async function inProject(command: string, args: string[], timeout = 120_000) {
  return run(command, args, {
    cwd: project,
    timeout,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...emulatorEnv(endpoint) },
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** The first `js` code block of docs/cli.md's client section: the example agents copy. */
async function clientExample(): Promise<string> {
  const doc = await readFile(join(ROOT, 'docs', 'cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf("## The agent client (`import … from 'reseal'`)"));
  const match = /```js\n([\s\S]*?)\n```/.exec(section);
  if (!match?.[1]) throw new Error('docs/cli.md: no js example in the agent client section');
  return match[1];
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-package-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: ROOT,
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [tarball] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string }[];
  if (!tarball) throw new Error(`npm pack printed no tarball: ${packed.stdout}`);
  project = join(dir, 'agent');
  await run('mkdir', ['-p', project]);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'agent', private: true, type: 'module' }));
  await inProject(
    'npm',
    ['install', join(dir, tarball.filename), '--no-audit', '--no-fund', '--prefer-offline'],
    300_000,
  );
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the installed package (npm pack → npm install → plain node)', () => {
  it('ships compiled JavaScript and declarations only, with no Lambda-only dependency', async () => {
    const manifest = JSON.parse(await readFile(join(project, 'node_modules', 'reseal', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).filter((d) => /powertools|middy|aws-lambda|^tsx$/.test(d))).toEqual([]);
    const { stdout } = await inProject('find', ['node_modules/reseal', '-name', '*.ts', '-not', '-name', '*.d.ts']);
    expect(stdout.trim()).toBe('');
    await expect(
      inProject('node', ['-e', "import('tsx').then(() => process.exit(1), () => process.exit(0))"]),
    ).resolves.toBeDefined();
  });

  it('`reseal`, `reseal/core`, `reseal/mcp` and `reseal/openai-agents` import by name with plain node, sharing one copy of the core; the framework, an optional peer, is not installed and not needed to import', async () => {
    const script = [
      "import { ResealClient, writeRequest, snapshotProviders } from 'reseal';",
      "import { InvalidInputError, isolateDelta, buildManifest } from 'reseal/core';",
      "import { createResealMcpServer } from 'reseal/mcp';",
      "import { ResealSession } from 'reseal/openai-agents';",
      "const manifest = { env: { A: '1', B: '1' }, structuralKeys: [], claimDependencyMap: { a: ['A'], b: ['B'] } };",
      'let sameClass = false;',
      "try { writeRequest({ residualId: 'not an id', lineageId: 'l', sessionId: 's', generationEpoch: 1, payload: null, boundaryAtMs: 1, manifest }); }",
      'catch (e) { sameClass = e instanceof InvalidInputError; }',
      "const verdict = isolateDelta(buildManifest(manifest), { A: '2', B: '1' }).verdict;",
      "let sessionRefusal = '';",
      "try { await ResealSession.connect({ label: 'x' }); } catch (e) { sessionRefusal = e instanceof InvalidInputError ? e.issues[0].path : String(e); }",
      'console.log(JSON.stringify({ client: typeof ResealClient, providers: typeof snapshotProviders, mcp: typeof createResealMcpServer, session: typeof ResealSession, sessionRefusal, sameClass, verdict }));',
    ].join('\n');
    await writeFile(join(project, 'imports.mjs'), script);
    const { stdout } = await inProject('node', ['imports.mjs']);
    await expect(readFile(join(project, 'node_modules', '@openai', 'agents-core', 'package.json'))).rejects.toThrow();
    expect(JSON.parse(stdout)).toEqual({
      client: 'function',
      providers: 'function',
      mcp: 'function',
      session: 'function',
      sessionRefusal: 'writerKeyFile',
      sameClass: true,
      verdict: 'PARTIAL_REPROBE_REQUIRED',
    });
  });

  it('its declarations type-check a consumer compiled with moduleResolution nodenext', async () => {
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    await writeFile(
      join(project, 'consumer.ts'),
      [
        "import { type WriteOutcome, writeRequest } from 'reseal';",
        "import { type DeltaIsolationReport, isolateDelta } from 'reseal/core';",
        "import { ToolErrorCode, type WriteSealedOutput } from 'reseal/mcp';",
        "export const code: 'TAMPER_DETECTED' = ToolErrorCode.TAMPER_DETECTED;",
        "// @ts-expect-error a sealed write's checkpoint is the signed checkpoint (note, origin, size, root), not a string",
        "export const sealed: WriteSealedOutput['checkpoint'] = 'note';",
        'export const isolate: typeof isolateDelta = isolateDelta;',
        '// @ts-expect-error a verdict is a string union, not a number (fails if the types resolved to any)',
        'export const verdict: number = ({} as DeltaIsolationReport).verdict;',
        "// @ts-expect-error a sealed head's seq is a number (a type two imports deep)",
        "export const outcome: WriteOutcome = { kind: 'SEALED', head: { seq: 'x' } };",
        '// @ts-expect-error writeRequest takes its input',
        'writeRequest();',
      ].join('\n'),
    );
    await expect(
      inProject('node', [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.']),
    ).resolves.toBeDefined();
  });

  it('runs the installed `reseal` bin: --help lists the commands, mcp among them', async () => {
    const { stdout } = await inProject(join(project, 'node_modules', '.bin', 'reseal'), ['--help']);
    expect(stdout).toContain('Usage: reseal');
    expect(stdout).toMatch(/\bmcp \[options\]/);
  });

  it("runs docs/cli.md's client example as written, twice in a row, against the deployed stack", async () => {
    await writeFile(join(project, 'agent.mjs'), await clientExample());
    for (let run = 0; run < 2; run++) {
      const { stdout } = await inProject('node', ['agent.mjs'], 180_000);
      expect(stdout).toMatch(/^sealed r-[0-9a-f-]{36} at seq \d+$/m);
      // The client's own answer: the record proven and the delta recomputed, not triage's report.
      expect(stdout).toContain('recall VERIFIED_INTACT NO_DRIFT keep node-build-works');
      // The head carries no signed lineage checkpoint (docs/deployment-log.md, "What changes for the
      // sealer", step 3): the record is proven in the tree head the index holds, no lineage note
      // kept; the store keeps the deployment checkpoint it was read from (docs/verifiable-log.md,
      // "Checkpoints the client keeps").
      expect(stdout).toMatch(/^proof \d+ records, truncation checked false$/m);
      expect(stdout).toContain('lineage VERIFIED_INTACT');
      expect(keptCheckpointOrigins(join(project, '.reseal', 'checkpoints.json'))).toEqual([stack.LogName]);
    }
  });

  it('serves `reseal mcp` over stdio from the installed bin: a write sealed, then recalled', async () => {
    await writeFile(join(project, 'outputs.json'), JSON.stringify(stack));
    // The server signs every write with its writer key; its lineage is the one `lineage-id` names.
    const bin = join(project, 'node_modules', '.bin', 'reseal');
    await inProject(bin, ['writer-key', 'new', '--out', 'mcp-writer.pem']);
    const label = `pkg-${randomUUID()}`;
    const lineageId = (
      await inProject(bin, ['lineage-id', '--label', label, '--writer-key', 'mcp-writer.pem'])
    ).stdout.trim();
    expect(lineageId).toMatch(new RegExp(`^${label}\\.[0-9a-f]{32}$`));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(project, 'node_modules', 'reseal', 'bin', 'reseal.mjs'), 'mcp', '--outputs-file', 'outputs.json'],
      cwd: project,
      env: { PATH: process.env.PATH ?? '', RESEAL_WRITER_KEY: 'mcp-writer.pem', ...emulatorEnv(endpoint) },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'reseal-package-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const env = { 'tool:node': process.version, 'os:platform': process.platform };
      const written = await client.callTool(
        {
          name: 'reseal_write',
          arguments: {
            lineageId,
            sessionId: 's-1',
            generationEpoch: 1,
            claims: { 'node-ok': { content: 'node runs the agent', causalKeys: ['tool:node'] } },
            structuralKeys: ['os:platform'],
            env,
            timeoutMs: 90_000,
          },
        },
        { timeout: 120_000 },
      );
      expect(written.structuredContent).toMatchObject({
        outcome: 'SEALED',
        seq: 0,
        checkpoint: { origin: `${stack.LogName}/${lineageId}`, size: 1 },
        proof: { leafIndex: 0, treeSize: 1, inclusionProof: [] },
      });
      // No signed lineage checkpoint (docs/deployment-log.md, "What changes for the sealer", step 3).
      expect((written.structuredContent as { checkpoint: { note: string | null } }).checkpoint.note).toBeNull();
      const recalled = await client.callTool(
        { name: 'reseal_recall', arguments: { lineageId, env, timeoutMs: 90_000 } },
        { timeout: 120_000 },
      );
      expect(recalled.structuredContent).toMatchObject({
        delta: { verdict: 'NO_DRIFT' },
        keptClaims: [{ claimId: 'node-ok', content: 'node runs the agent' }],
        // Proven in the tree head the index holds: no lineage checkpoint kept to check truncation against.
        verification: {
          verdict: 'VERIFIED_INTACT',
          checkpointSize: 1,
          truncationChecked: false,
          checkpoint: { note: null },
        },
      });
    } finally {
      await client.close();
    }
  });
});
