import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallToolResult, Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../client/errors';
import { FileCheckpointStore } from '../../../client/file-checkpoint-store';
import type { Freshness } from '../../../client/verified-recall';
import { lazyMcpClient } from '../../../mcp/lazy-client';
import { MissingPart } from '../../../mcp/missing-part';
import { ToolErrorCode } from '../../../mcp/outputs/tool-error-code';
import { VerifyOutput } from '../../../mcp/outputs/verify-output';
import { WriteSealedOutput } from '../../../mcp/outputs/write-sealed-output';
import type { McpClient, ResealMcpDeps } from '../../../mcp/reseal-mcp-deps';
import { resolveMcpClient } from '../../../mcp/resolve-mcp-client';
import { createResealMcpServer } from '../../../mcp/server';
import { stackPlace } from '../../../mcp/stack-place';
import { tenantScopedClient } from '../../../mcp/tenant-scoped-client';
import { INSPECT_TOOL } from '../../../mcp/tools/inspect';
import { RECALL_TOOL } from '../../../mcp/tools/recall';
import { VERIFY_TOOL } from '../../../mcp/tools/verify';
import { WRITE_TOOL } from '../../../mcp/tools/write';
import type { FreshnessState } from '../../../shared/integrator/record-freshness';
import { checkpointOrigin } from '../../../shared/log/checkpoint-origin';
import { VerificationVerdict } from '../../../shared/seal/verification-verdict';
import { DeltaVerdict } from '../../../shared/triage/delta-isolation-report';
import { inProcessStack } from '../../helpers/in-process-stack';
import { integratedStack } from '../../helpers/integrated-stack';
import { expectConforming } from '../../helpers/mcp-conformance';
import {
  MCP_CLAIMS as CLAIMS,
  MCP_ENV as ENV,
  MCP_FIRST_WRITE as FIRST_WRITE,
  MCP_LINEAGE as LINEAGE,
} from '../../helpers/mcp-fixtures';
import { TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { signWriteSync, testLineageId } from '../../helpers/writer-factories';
import { pipeline } from './pipeline';

// The MCP conformance test (docs/mcp.md, "Conformance"): the SDK's own client lists the tools,
// then every tool is driven to every outcome it can answer, over the real pipeline in process.
// Each answer must validate against what `tools/list` declared (the tool's outputSchema for a
// success, the documented error shape for an isError result), checked explicitly with the SDK's
// JSON Schema validator besides the client's own check. The outcome kinds are data derived from
// the code's enums: a new kind without a scenario fails the coverage test.

const TOOLS = [WRITE_TOOL, RECALL_TOOL, VERIFY_TOOL, INSPECT_TOOL] as const;
type ToolName = (typeof TOOLS)[number];

/** What a tool answers when it succeeds: one kind per value the success's `structuredContent` can name. */
const SUCCESS_KINDS: Readonly<Record<ToolName, readonly string[]>> = {
  [WRITE_TOOL]: [WriteSealedOutput.shape.outcome.value],
  [RECALL_TOOL]: Object.values(DeltaVerdict),
  [VERIFY_TOOL]: [VerifyOutput.shape.verdict.value],
  [INSPECT_TOOL]: [VerificationVerdict.VERIFIED_INTACT],
};

/** The tool errors a tool cannot answer, and why; every other {@link ToolErrorCode} needs a scenario. */
const NOT_ANSWERED: Readonly<Record<ToolName, Partial<Record<ToolErrorCode, string>>>> = {
  [WRITE_TOOL]: {
    AWAITING_INTEGRATION: 'a sealed write awaiting integration is SEALED, with its freshness state',
    NOT_FOUND: 'a write creates its lineage',
    UNTRIAGEABLE: 'only a recall triages',
  },
  [RECALL_TOOL]: {
    WRITE_REJECTED: 'a recall writes nothing',
    WRITE_CONFLICT: 'a recall writes nothing',
  },
  [VERIFY_TOOL]: {
    WRITE_REJECTED: 'reads only',
    WRITE_CONFLICT: 'reads only',
    UNTRIAGEABLE: 'only a recall triages',
    TIMEOUT: 'waits for no pipeline answer',
  },
  [INSPECT_TOOL]: {
    WRITE_REJECTED: 'reads only',
    WRITE_CONFLICT: 'reads only',
    UNTRIAGEABLE: 'only a recall triages',
    TIMEOUT: 'waits for no pipeline answer',
  },
};

/** Every outcome kind `tool` can answer: its success kinds, then its tool error codes. */
function expectedKinds(tool: ToolName): string[] {
  const errors = Object.values(ToolErrorCode).filter((code) => !(code in NOT_ANSWERED[tool]));
  return [...SUCCESS_KINDS[tool], ...errors];
}

/** The outcome kind of an answer: the error code of a tool error, else what the success names. */
function kindOf(tool: ToolName, result: CallToolResult): string {
  const out = result.structuredContent as Record<string, unknown>;
  if (result.isError) return String(out.error);
  if (tool === RECALL_TOOL) return String((out.delta as { verdict: unknown }).verdict);
  return String(tool === WRITE_TOOL ? out.outcome : out.verdict);
}

// --- the scenarios ---

const NEXT_WRITE = {
  ...FIRST_WRITE,
  sessionId: 's-4',
  generationEpoch: 4,
  predecessor: { sessionId: 's-3', epoch: 3 },
};
const STALE_VARIABLE = { name: 'RUNNER_ID', value: 'runner-17', freshness: 'UNVERIFIED_INHERITED', sourceEpoch: 2 };

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-mcp-conformance-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

type Pipeline = ReturnType<typeof pipeline>;
type Call = (tool: ToolName, args: Record<string, unknown>) => Promise<CallToolResult>;

/** A scenario's world: the pipeline, and MCP sessions on it that check every answer they get. */
interface Harness {
  readonly p: Pipeline;
  /** A host connected to a server over `deps` (default: the pipeline's, snapshots of {@link ENV}), after `tools/list`. */
  connect(deps?: ResealMcpDeps): Promise<Call>;
  /** A host on the pipeline's client with some of its methods replaced. */
  connectOverriding(overrides: Partial<McpClient>): Promise<Call>;
}

function harness(): Harness {
  const p = pipeline();
  const connect = async (deps: ResealMcpDeps = p.deps(ENV)): Promise<Call> => {
    const server = createResealMcpServer(deps);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = new Client({ name: 'reseal-conformance', version: '1.0.0' });
    await mcp.connect(clientSide);
    closers.push(async () => {
      await mcp.close();
      await server.close();
    });
    const { tools } = await mcp.listTools();
    return async (name, args) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`${name} not listed`);
      // The client validates a success's structuredContent against the listed outputSchema itself.
      const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
      expectConforming(tool, result);
      return result;
    };
  };
  const connectOverriding = (overrides: Partial<McpClient>) => {
    const real = p.client;
    const client = new Proxy(real, {
      get: (target, key) => {
        if (Object.hasOwn(overrides, key)) return overrides[key as keyof McpClient];
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return connect({ ...p.deps(ENV), client });
  };
  return { p, connect, connectOverriding };
}

/** Seals {@link FIRST_WRITE} and returns a session on the same server. */
async function sealedFirst(h: Harness): Promise<Call> {
  const call = await h.connect();
  expect(kindOf(WRITE_TOOL, await call(WRITE_TOOL, FIRST_WRITE))).toBe('SEALED');
  return call;
}

/** Two records sealed, then the table rolled back to the first (head and log state restored, the tail deleted). */
async function rolledBack(h: Harness): Promise<Call> {
  const call = await sealedFirst(h);
  const head = structuredClone(h.p.store.heads.get(LINEAGE));
  const log = structuredClone(h.p.store.logHeads.get(LINEAGE));
  await call(WRITE_TOOL, NEXT_WRITE);
  if (!head || !log) throw new Error('no head');
  h.p.store.heads.set(LINEAGE, head);
  h.p.store.logHeads.set(LINEAGE, log);
  h.p.store.deleteRecord(LINEAGE, 1);
  return call;
}

/** A session whose record seq 0 was edited in the table after it was sealed. */
async function edited(h: Harness): Promise<Call> {
  const call = await sealedFirst(h);
  h.p.store.tamperRecord(LINEAGE, 0, (record) => {
    (record.payload as { claims: Record<string, unknown> }).claims['node-builds'] = 'nothing went wrong';
  });
  return call;
}

/** A freshness as the client decides it (docs/mcp.md, "Freshness"): `state` against deployment checkpoint 3, unwitnessed. */
const freshness = (state: FreshnessState): Freshness => ({
  state,
  checkpointSize: state === 'REFUSED' ? null : 3,
  reason: `${state} (as the client decided it)`,
  witnessing: 'UNWITNESSED',
  windowSeconds: null,
});

/** A session whose client's write outcomes carry `state` (the real outcome, its freshness replaced). */
function writesShowing(h: Harness, state: FreshnessState): Promise<Call> {
  const real = h.p.client;
  return h.connectOverriding({
    waitForOutcome: async (...args) => {
      const outcome = await real.waitForOutcome(...args);
      return outcome.kind === 'SEALED' ? { ...outcome, freshness: freshness(state) } : outcome;
    },
  });
}

/** A session whose client's recalls carry `state` (the real recall, its freshness replaced). */
async function recallsShowing(h: Harness, state: FreshnessState): Promise<Call> {
  await sealedFirst(h);
  const real = h.p.client;
  return h.connectOverriding({
    recall: async (...args) => ({ ...(await real.recall(...args)), freshness: freshness(state) }),
  });
}

/** A server whose stack cannot be resolved: its outputs file does not exist. */
function unresolvable(h: Harness): Promise<Call> {
  const config = {
    stackName: 'ResealStack',
    outputsFile: join(dir, 'not-deployed-yet.json'),
    checkpointsFile: null,
    configFile: null,
    region: 'eu-west-1',
    endpoint: null,
  };
  const client = lazyMcpClient(
    () => resolveMcpClient(config, { checkpointStore: h.p.checkpointStore }),
    stackPlace(config),
  );
  return h.connect({ ...h.p.deps(ENV), client });
}

/** A server whose client keeps its checkpoints in a file that is not a checkpoint file. */
async function corruptCheckpoints(h: Harness): Promise<Call> {
  const path = join(dir, `corrupt-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, '{"formatVersion": 1, "checkpoints": [');
  const { client } = inProcessStack({
    store: h.p.store,
    clock: h.p.clock,
    checkpointStore: new FileCheckpointStore(path),
  });
  return h.connect({ ...h.p.deps(ENV), client });
}

/** A server whose client is scoped to another tenant than {@link LINEAGE}'s, as the remote server's is (docs/mcp.md, "Tenants"). */
/** A lineage of a stack whose sealer signs no lineage checkpoint (docs/deployment-log.md, "What changes for the sealer"). */
const UNSIGNED_LINEAGE = testLineageId('lin-mcp-unsigned');

/** A host on such a stack: one write integrated, a second sealed past the tree head the index holds. */
async function awaitingIntegration(h: Harness): Promise<Call> {
  const s = integratedStack({ signLineageCheckpoints: false });
  await s.send({ lineageId: UNSIGNED_LINEAGE, residualId: 'r-0' });
  await s.integrate();
  await s.send({ lineageId: UNSIGNED_LINEAGE, residualId: 'r-1' });
  return h.connect({ client: s.client(), snapshots: null });
}

function otherTenant(h: Harness): Promise<Call> {
  return h.connect({ ...h.p.deps(ENV), client: tenantScopedClient(h.p.client, 'other-tenant') });
}
const forbidden = (out: Record<string, unknown>) =>
  expect(out).toMatchObject({ lineageId: LINEAGE, tenantId: 'other-tenant' });

const awsDenied = () =>
  Object.assign(new Error('User is not authorized to perform this action'), { name: 'AccessDeniedException' });

interface Scenario {
  readonly name: string;
  readonly run: (h: Harness) => Promise<CallToolResult>;
  /** What else the answer must say (beyond its kind and its schema). */
  readonly expect?: (out: Record<string, unknown>) => void;
}

const toolLevelIssue = (out: Record<string, unknown>) =>
  expect(out).toMatchObject({ issues: expect.arrayContaining([expect.objectContaining({ path: 'lineageId' })]) });
const unavailableOutputs = (out: Record<string, unknown>) =>
  expect(out).toMatchObject({ missing: MissingPart.OUTPUTS, stackName: 'ResealStack', region: 'eu-west-1' });
const unreadableStore = (out: Record<string, unknown>) =>
  expect(out).toMatchObject({ checkpointStore: expect.stringContaining('corrupt-') });

/** Every scenario, by tool and outcome kind. */
const SCENARIOS: Readonly<Record<ToolName, Readonly<Record<string, readonly Scenario[]>>>> = {
  [WRITE_TOOL]: {
    SEALED: [
      { name: 'a first write', run: async (h) => (await h.connect())(WRITE_TOOL, FIRST_WRITE) },
      {
        name: 'PROVEN through the deployment log',
        run: async (h) => (await writesShowing(h, 'PROVEN'))(WRITE_TOOL, FIRST_WRITE),
        expect: (out) => expect(out).toMatchObject({ freshness: { state: 'PROVEN', checkpointSize: 3 } }),
      },
      {
        name: 'sealed, awaiting integration when the wait ran out',
        run: async (h) => (await writesShowing(h, 'SEALED_AWAITING_INTEGRATION'))(WRITE_TOOL, FIRST_WRITE),
        expect: (out) => expect(out).toMatchObject({ freshness: { state: 'SEALED_AWAITING_INTEGRATION' } }),
      },
    ],
    TENANT_MISMATCH: [
      {
        name: "a lineage of another tenant than the caller's",
        run: async (h) => (await otherTenant(h))(WRITE_TOOL, FIRST_WRITE),
        expect: forbidden,
      },
    ],
    WRITE_REJECTED: [
      {
        name: 'by the guard: an inherited value never re-probed',
        run: async (h) => (await h.connect())(WRITE_TOOL, { ...FIRST_WRITE, variables: [STALE_VARIABLE] }),
        expect: (out) => expect(out).toMatchObject({ stage: 'GUARD', reason: 'STALE_STATE' }),
      },
      {
        name: 'by the sealer: a residual id reused with other content',
        run: async (h) => {
          const call = await h.connect();
          await call(WRITE_TOOL, { ...FIRST_WRITE, residualId: 'r-once' });
          return call(WRITE_TOOL, { ...NEXT_WRITE, residualId: 'r-once', claims: { other: CLAIMS['node-builds'] } });
        },
        expect: (out) => expect(out).toMatchObject({ stage: 'SEALER', reason: 'RESIDUAL_ID_REUSED' }),
      },
      {
        // The same call after the server restarted: only the default boundary (the start time) moved,
        // and the action says so (docs/mcp.md, `reseal_write`).
        name: 'by the sealer: the same write retried after a server restart, boundary left to its default',
        run: async (h) => {
          const first = await h.connect();
          await first(WRITE_TOOL, { ...FIRST_WRITE, residualId: 'r-retried' });
          const restarted = await h.connect({
            ...h.p.deps(ENV),
            sessionStartMs: (h.p.deps(ENV).sessionStartMs ?? 0) + 30_000,
          });
          return restarted(WRITE_TOOL, { ...FIRST_WRITE, residualId: 'r-retried' });
        },
        expect: (out) =>
          expect(out).toMatchObject({
            reason: 'RESIDUAL_ID_REUSED',
            action: expect.stringMatching(/boundaryAtMs defaults to when the server started/),
          }),
      },
    ],
    WRITE_CONFLICT: [
      {
        name: 'a generation fenced out by a newer one',
        run: async (h) =>
          (await sealedFirst(h))(WRITE_TOOL, {
            ...FIRST_WRITE,
            sessionId: 's-2',
            generationEpoch: 2,
            predecessor: { sessionId: 's-1', epoch: 1 },
          }),
        expect: (out) => expect(out).toMatchObject({ reason: 'STALE_EPOCH' }),
      },
    ],
    TAMPER_DETECTED: [
      {
        name: 'a seal the deployment log contradicts (INCONSISTENT: the index maps its residual id elsewhere)',
        run: async (h) => (await writesShowing(h, 'INCONSISTENT'))(WRITE_TOOL, FIRST_WRITE),
        expect: (out) => expect(out).toMatchObject({ seq: 0, freshness: { state: 'INCONSISTENT' } }),
      },
      {
        name: 'a seal whose deployment chain does not verify (REFUSED)',
        run: async (h) => (await writesShowing(h, 'REFUSED'))(WRITE_TOOL, FIRST_WRITE),
        expect: (out) => expect(out).toMatchObject({ freshness: { state: 'REFUSED', checkpointSize: null } }),
      },
      {
        name: 'a seal in another history than the checkpoint the server kept (a forked table)',
        run: async (h) => {
          // The same lineage sealed elsewhere first: the server keeps that history's checkpoint.
          const other = harness();
          await (await other.connect())(WRITE_TOOL, { ...FIRST_WRITE, residualId: 'r-other-history' });
          const origin = checkpointOrigin(TEST_LOG_NAME, LINEAGE);
          await h.p.checkpointStore.save(origin, (await other.p.checkpointStore.load(origin)) ?? '');
          return (await h.connect())(WRITE_TOOL, { ...FIRST_WRITE, residualId: 'r-this-history' });
        },
      },
    ],
    INVALID_INPUT: [
      {
        name: 'a causal key missing from the snapshot',
        run: async (h) =>
          (await h.connect())(WRITE_TOOL, {
            ...FIRST_WRITE,
            claims: { 'git-works': { content: 'ok', causalKeys: ['tool:git'] } },
          }),
        expect: (out) => expect(JSON.stringify(out.issues)).toContain('tool:git'),
      },
      {
        name: 'arguments that fail the input schema',
        run: async (h) => (await h.connect())(WRITE_TOOL, { ...FIRST_WRITE, lineageId: 'has spaces' }),
        expect: toolLevelIssue,
      },
    ],
    TIMEOUT: [
      {
        name: 'the message never reaches the guard',
        run: async (h) =>
          (
            await h.connectOverriding({
              publishWrite: async (request) => ({
                messageId: 'lost',
                publishedAtMs: h.p.clock.now,
                request: signWriteSync(request, undefined, h.p.clock.now),
              }),
            })
          )(WRITE_TOOL, { ...FIRST_WRITE, timeoutMs: 2_000 }),
        expect: (out) => expect(out).toMatchObject({ timeoutMs: 2_000 }),
      },
    ],
    UNAVAILABLE: [
      {
        name: 'the stack cannot be resolved',
        run: async (h) => (await unresolvable(h))(WRITE_TOOL, FIRST_WRITE),
        expect: unavailableOutputs,
      },
      {
        name: 'the checkpoint file is corrupt',
        run: async (h) => (await corruptCheckpoints(h))(WRITE_TOOL, FIRST_WRITE),
        expect: unreadableStore,
      },
    ],
    UNEXPECTED: [
      {
        name: 'AWS refuses the publish',
        run: async (h) =>
          (await h.connectOverriding({ publishWrite: async () => Promise.reject(awsDenied()) }))(
            WRITE_TOOL,
            FIRST_WRITE,
          ),
      },
    ],
  },
  [RECALL_TOOL]: {
    NO_DRIFT: [
      { name: 'the same environment', run: async (h) => (await sealedFirst(h))(RECALL_TOOL, { lineageId: LINEAGE }) },
      {
        name: 'the same environment, without triage',
        run: async (h) => (await sealedFirst(h))(RECALL_TOOL, { lineageId: LINEAGE, triage: false }),
        expect: (out) => expect(out).toMatchObject({ verification: { verdict: 'VERIFIED_INTACT' } }),
      },
      {
        name: 'the same environment, PROVEN through the deployment log',
        run: async (h) => (await recallsShowing(h, 'PROVEN'))(RECALL_TOOL, { lineageId: LINEAGE }),
        expect: (out) => expect(out).toMatchObject({ freshness: { state: 'PROVEN', witnessing: 'UNWITNESSED' } }),
      },
      {
        name: 'the same environment, sealed, awaiting integration',
        run: async (h) => (await recallsShowing(h, 'SEALED_AWAITING_INTEGRATION'))(RECALL_TOOL, { lineageId: LINEAGE }),
        expect: (out) => expect(out).toMatchObject({ freshness: { state: 'SEALED_AWAITING_INTEGRATION' } }),
      },
    ],
    AMBIENT_DRIFT_ONLY: [
      {
        name: 'a key no claim rests on appeared',
        run: async (h) =>
          (await sealedFirst(h))(RECALL_TOOL, { lineageId: LINEAGE, env: { ...ENV, 'env:UNRELATED': '1' } }),
      },
    ],
    PARTIAL_REPROBE_REQUIRED: [
      {
        name: "one claim's key drifted",
        run: async (h) =>
          (await sealedFirst(h))(RECALL_TOOL, { lineageId: LINEAGE, env: { ...ENV, 'tool:npm': '11.0.0' } }),
        expect: (out) => expect(out).toMatchObject({ reprobeClaims: [{ claimId: 'npm-ci-works' }] }),
      },
      {
        name: "one claim's key drifted, without triage",
        run: async (h) =>
          (await sealedFirst(h))(RECALL_TOOL, {
            lineageId: LINEAGE,
            env: { ...ENV, 'tool:npm': '11.0.0' },
            triage: false,
          }),
        expect: (out) => expect(out).toMatchObject({ reprobeClaims: [{ claimId: 'npm-ci-works' }] }),
      },
    ],
    FULL_RECONSTRUCTION_REQUIRED: [
      {
        name: 'a structural key drifted',
        run: async (h) =>
          (await sealedFirst(h))(RECALL_TOOL, { lineageId: LINEAGE, env: { ...ENV, 'tool:os': 'ubuntu-26.04' } }),
      },
    ],
    TAMPER_DETECTED: [
      {
        name: 'a record edited in the table',
        run: async (h) => (await edited(h))(RECALL_TOOL, { lineageId: LINEAGE }),
        expect: (out) => expect(out).toMatchObject({ verdict: 'HASH_MISMATCH' }),
      },
      {
        name: 'a record edited in the table, without triage',
        run: async (h) => (await edited(h))(RECALL_TOOL, { lineageId: LINEAGE, triage: false }),
        expect: (out) => expect(out).toMatchObject({ verdict: 'HASH_MISMATCH', detectedBy: 'client' }),
      },
      {
        name: 'a table rolled back to an earlier signed state, without triage',
        run: async (h) => (await rolledBack(h))(RECALL_TOOL, { lineageId: LINEAGE, triage: false }),
        expect: (out) => expect(out).toMatchObject({ verdict: 'TRUNCATION_DETECTED' }),
      },
      {
        name: 'a table rolled back to an earlier signed state',
        run: async (h) => (await rolledBack(h))(RECALL_TOOL, { lineageId: LINEAGE }),
        expect: (out) => expect(out).toMatchObject({ verdict: 'TRUNCATION_DETECTED' }),
      },
    ],
    NOT_FOUND: [
      { name: 'an unknown lineage', run: async (h) => (await h.connect())(RECALL_TOOL, { lineageId: 'nobody-here' }) },
      {
        name: 'an unknown lineage, without triage',
        run: async (h) => (await h.connect())(RECALL_TOOL, { lineageId: 'nobody-here', triage: false }),
        expect: (out) => expect(String(out.message)).toMatch(/says the server's own reading of the table/),
      },
    ],
    TENANT_MISMATCH: [
      {
        name: "a lineage of another tenant than the caller's",
        run: async (h) => (await otherTenant(h))(RECALL_TOOL, { lineageId: LINEAGE }),
        expect: forbidden,
      },
      {
        name: "a lineage of another tenant than the caller's, without triage",
        run: async (h) => (await otherTenant(h))(RECALL_TOOL, { lineageId: LINEAGE, triage: false }),
        expect: forbidden,
      },
    ],
    INVALID_INPUT: [
      {
        name: 'no env and no snapshot providers',
        run: async (h) => (await h.connect({ ...h.p.deps(ENV), snapshots: null }))(RECALL_TOOL, { lineageId: LINEAGE }),
        expect: (out) => expect(out).toMatchObject({ issues: [{ path: 'env' }] }),
      },
      {
        name: 'arguments that fail the input schema',
        run: async (h) => (await h.connect())(RECALL_TOOL, { lineageId: 'has spaces' }),
        expect: toolLevelIssue,
      },
    ],
    TIMEOUT: [
      {
        name: 'no triage report in time',
        run: async (h) =>
          (
            await h.connectOverriding({
              recall: async () => Promise.reject(new TimeoutError(`triage report TRIAGE#${LINEAGE} / req-1`, 2_000)),
            })
          )(RECALL_TOOL, { lineageId: LINEAGE, timeoutMs: 2_000 }),
      },
    ],
    UNAVAILABLE: [
      {
        name: 'the stack cannot be resolved',
        run: async (h) => (await unresolvable(h))(RECALL_TOOL, { lineageId: LINEAGE }),
        expect: unavailableOutputs,
      },
    ],
    UNEXPECTED: [
      {
        name: 'AWS refuses the recall event',
        run: async (h) =>
          (await h.connectOverriding({ recall: async () => Promise.reject(awsDenied()) }))(RECALL_TOOL, {
            lineageId: LINEAGE,
          }),
      },
    ],
    AWAITING_INTEGRATION: [
      {
        // docs/mcp.md, "Errors": an answer came and was checked, so never TIMEOUT; not tampering either.
        name: "a record proven only in a head the sealer MAC'd, past the tree head the index holds",
        run: async (h) => {
          await (await h.connect())(WRITE_TOOL, FIRST_WRITE);
          const real = h.p.client;
          const call = await h.connectOverriding({
            recall: async (request, options) => ({
              ...(await real.recall(request, options)),
              end: 'AWAITING_INTEGRATION',
              verdict: null,
              record: null,
              inclusion: null,
              delta: null,
              freshness: freshness('SEALED_AWAITING_INTEGRATION'),
            }),
          });
          return call(RECALL_TOOL, { lineageId: LINEAGE });
        },
        expect: (out) => {
          expect(out).toMatchObject({
            lineageId: LINEAGE,
            proven: false,
            verdict: null,
            freshness: { state: 'SEALED_AWAITING_INTEGRATION' },
          });
          expect(String(out.message)).toMatch(/sealed, awaiting integration/);
          expect(String(out.message)).toMatch(/not tampering/);
        },
      },
    ],
    UNTRIAGEABLE: [
      {
        name: 'a proven record whose manifest cannot be triaged',
        run: async (h) => {
          await (await h.connect())(WRITE_TOOL, FIRST_WRITE);
          const real = h.p.client;
          const call = await h.connectOverriding({
            recall: async (request, options) => ({
              ...(await real.recall(request, options)),
              end: 'UNTRIAGEABLE',
              delta: null,
              refusal: { code: 'MANIFEST_UNTRIAGEABLE', reason: 'delta isolation refused', proven: true },
            }),
          });
          return call(RECALL_TOOL, { lineageId: LINEAGE });
        },
      },
    ],
  },
  [VERIFY_TOOL]: {
    VERIFIED_INTACT: [
      { name: 'a sealed lineage', run: async (h) => (await sealedFirst(h))(VERIFY_TOOL, { lineageId: LINEAGE }) },
    ],
    TAMPER_DETECTED: [
      {
        name: 'a record edited in the table',
        run: async (h) => (await edited(h))(VERIFY_TOOL, { lineageId: LINEAGE }),
        expect: (out) => expect(out).toMatchObject({ verdict: 'HASH_MISMATCH', detectedBy: 'walk' }),
      },
      {
        name: 'a table rolled back to an earlier signed state',
        run: async (h) => (await rolledBack(h))(VERIFY_TOOL, { lineageId: LINEAGE }),
        expect: (out) => expect(out).toMatchObject({ verdict: 'TRUNCATION_DETECTED', detectedBy: 'log' }),
      },
    ],
    NOT_FOUND: [
      { name: 'an unknown lineage', run: async (h) => (await h.connect())(VERIFY_TOOL, { lineageId: 'nobody-here' }) },
    ],
    AWAITING_INTEGRATION: [
      {
        name: 'a record sealed past the tree head the index holds (a sealer that signs no lineage checkpoint)',
        run: async (h) => (await awaitingIntegration(h))(VERIFY_TOOL, { lineageId: UNSIGNED_LINEAGE }),
        expect: (out) =>
          expect(out).toMatchObject({
            verdict: 'UNVERIFIED_TAMPER_RISK',
            awaitingIntegrationFromSeq: 1,
            treeHead: { size: 1, vouchedBy: 'index', deploymentCheckpointSize: 1 },
            checkpoint: null,
            freshness: { state: 'SEALED_AWAITING_INTEGRATION' },
          }),
      },
    ],
    TENANT_MISMATCH: [
      {
        name: "a lineage of another tenant than the caller's",
        run: async (h) => (await otherTenant(h))(VERIFY_TOOL, { lineageId: LINEAGE }),
        expect: forbidden,
      },
    ],
    INVALID_INPUT: [
      {
        name: 'arguments that fail the input schema',
        run: async (h) => (await h.connect())(VERIFY_TOOL, { lineageId: 'has spaces' }),
        expect: toolLevelIssue,
      },
    ],
    UNAVAILABLE: [
      {
        name: 'the stack cannot be resolved',
        run: async (h) => (await unresolvable(h))(VERIFY_TOOL, { lineageId: LINEAGE }),
        expect: unavailableOutputs,
      },
      {
        name: 'the checkpoint file is corrupt',
        run: async (h) => {
          await sealedFirst(h);
          return (await corruptCheckpoints(h))(VERIFY_TOOL, { lineageId: LINEAGE });
        },
        expect: unreadableStore,
      },
    ],
    UNEXPECTED: [
      {
        name: 'AWS refuses a read',
        run: async (h) => {
          await sealedFirst(h);
          const call = await h.connectOverriding({ verifyStoredLineage: async () => Promise.reject(awsDenied()) });
          return call(VERIFY_TOOL, { lineageId: LINEAGE });
        },
      },
    ],
  },
  [INSPECT_TOOL]: {
    VERIFIED_INTACT: [
      {
        name: 'a sealed lineage with a guard rejection and a conflict',
        run: async (h) => {
          const call = await sealedFirst(h);
          await call(WRITE_TOOL, { ...NEXT_WRITE, variables: [STALE_VARIABLE] });
          await call(WRITE_TOOL, {
            ...FIRST_WRITE,
            sessionId: 's-2',
            generationEpoch: 2,
            predecessor: { sessionId: 's-1', epoch: 1 },
          });
          return call(INSPECT_TOOL, { lineageId: LINEAGE });
        },
        expect: (out) =>
          expect(out).toMatchObject({
            rejections: [
              {
                stage: 'GUARD',
                reason: 'STALE_STATE',
                rejectedVariables: [{ name: 'RUNNER_ID', action: expect.stringContaining('reprobe') }],
                signatureVerified: true,
              },
            ],
            conflicts: [{ reason: 'STALE_EPOCH', signatureVerified: true }],
          }),
      },
    ],
    TAMPER_DETECTED: [
      {
        name: 'a record edited in the table, with a rejection on record',
        run: async (h) => {
          const call = await edited(h);
          await call(WRITE_TOOL, { ...NEXT_WRITE, variables: [STALE_VARIABLE] });
          return call(INSPECT_TOOL, { lineageId: LINEAGE });
        },
        expect: (out) =>
          expect(out).toMatchObject({
            verdict: 'HASH_MISMATCH',
            records: [{ seq: 0, verification: 'HASH_MISMATCH' }],
            rejections: [{ reason: 'STALE_STATE' }],
          }),
      },
      {
        name: 'a table rolled back to an earlier signed state',
        run: async (h) => (await rolledBack(h))(INSPECT_TOOL, { lineageId: LINEAGE }),
        expect: (out) => expect(out).toMatchObject({ verdict: 'TRUNCATION_DETECTED' }),
      },
    ],
    NOT_FOUND: [
      { name: 'an unknown lineage', run: async (h) => (await h.connect())(INSPECT_TOOL, { lineageId: 'nobody-here' }) },
    ],
    AWAITING_INTEGRATION: [
      {
        name: 'a record sealed past the tree head the index holds (a sealer that signs no lineage checkpoint)',
        run: async (h) => (await awaitingIntegration(h))(INSPECT_TOOL, { lineageId: UNSIGNED_LINEAGE }),
        expect: (out) =>
          expect(out).toMatchObject({
            awaitingIntegrationFromSeq: 1,
            treeHead: { size: 1, vouchedBy: 'index' },
            records: [
              { seq: 0, verification: 'VERIFIED_INTACT' },
              { seq: 1, verification: 'UNVERIFIED_TAMPER_RISK' },
            ],
          }),
      },
    ],
    TENANT_MISMATCH: [
      {
        name: "a lineage of another tenant than the caller's",
        run: async (h) => (await otherTenant(h))(INSPECT_TOOL, { lineageId: LINEAGE }),
        expect: forbidden,
      },
    ],
    INVALID_INPUT: [
      {
        name: 'arguments that fail the input schema',
        run: async (h) => (await h.connect())(INSPECT_TOOL, { lineageId: 'has spaces' }),
        expect: toolLevelIssue,
      },
    ],
    UNAVAILABLE: [
      {
        name: 'the stack cannot be resolved',
        run: async (h) => (await unresolvable(h))(INSPECT_TOOL, { lineageId: LINEAGE }),
        expect: unavailableOutputs,
      },
      {
        name: 'the checkpoint file is corrupt',
        run: async (h) => {
          await sealedFirst(h);
          return (await corruptCheckpoints(h))(INSPECT_TOOL, { lineageId: LINEAGE });
        },
        expect: unreadableStore,
      },
    ],
    UNEXPECTED: [
      {
        name: 'AWS refuses a read',
        run: async (h) => {
          await sealedFirst(h);
          const call = await h.connectOverriding({ readRefusals: async () => Promise.reject(awsDenied()) });
          return call(INSPECT_TOOL, { lineageId: LINEAGE });
        },
      },
    ],
  },
};

describe('MCP conformance: every tool, every outcome kind, each answer as tools/list declared it', () => {
  it('tools/list declares exactly the four tools, each with an object outputSchema', async () => {
    const h = harness();
    const mcp = new Client({ name: 'reseal-conformance', version: '1.0.0' });
    const server = createResealMcpServer(h.p.deps(ENV));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await mcp.connect(clientSide);
    closers.push(async () => {
      await mcp.close();
      await server.close();
    });
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) expect(tool.outputSchema).toMatchObject({ type: 'object' });
  });

  it.each(TOOLS)('%s: the scenarios cover every outcome kind it can answer (from the code’s enums)', (tool) => {
    expect(Object.keys(SCENARIOS[tool]).sort()).toEqual(expectedKinds(tool).sort());
    for (const scenarios of Object.values(SCENARIOS[tool])) expect(scenarios.length).toBeGreaterThan(0);
  });

  const cases = TOOLS.flatMap((tool) =>
    Object.entries(SCENARIOS[tool]).flatMap(([kind, scenarios]) =>
      scenarios.map((scenario) => ({ tool, kind, scenario, title: `${tool} ${kind}: ${scenario.name}` })),
    ),
  );
  it.each(cases)('$title', async ({ tool, kind, scenario }) => {
    const result = await scenario.run(harness());
    expect(kindOf(tool, result)).toBe(kind);
    expect(result.isError === true).toBe(!SUCCESS_KINDS[tool].includes(kind));
    scenario.expect?.(result.structuredContent as Record<string, unknown>);
  });
});
