/**
 * The MCP tools as readers of a tampering matrix (docs/guarantees.md; docs/mcp.md, "Tools"): each read
 * starts the server in process (`createResealMcpServer`) on a client of the deployed stack
 * ({@link clientOf}: recalls answered by the triage function in process, writes dropped), and
 * calls one tool through the SDK's own client over an in-memory transport, as an agent host
 * would. With a checkpoint, the server's client keeps the trusted signed checkpoint (its
 * `RESEAL_CHECKPOINTS`). Each reader reports one short outcome: the tool error's `error` and
 * `verdict` (`TAMPER_DETECTED HASH_MISMATCH`, `TIMEOUT`), or what the answer says.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createResealMcpServer } from '../../mcp/server';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { clientOf, listedRefusal, memoryStore, type Reader, type ReaderSetup, type ReadTarget } from './tamper-readers';
import { TEST_POLICY, TEST_WRITER } from './writer-factories';

/** How long the waiting tools wait (`timeoutMs`): as the CLI readers do. */
const TOOL_WAIT_MS = 2_000;

type Structured = Record<string, unknown>;

/** Calls tool `name` with `args` on a fresh server over the stack; its `isError` and `structuredContent`. */
async function callTool(
  setup: ReaderSetup,
  target: ReadTarget,
  withCheckpoint: boolean,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; out: Structured }> {
  // Only `reseal_write` signs: the test writer key, as the server's `RESEAL_WRITER_KEY` would be.
  const writer = name === 'reseal_write' ? { writer: TEST_WRITER, inceptionPolicy: TEST_POLICY } : undefined;
  const client = clientOf(setup, target, await memoryStore(setup, target, withCheckpoint), writer);
  const server = createResealMcpServer({ client, snapshots: null });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: 'reseal-tamper-matrix', version: '1.0.0' });
  await mcp.connect(clientSide);
  try {
    const result = await mcp.callTool({ name, arguments: args }, { timeout: 30_000 });
    return { isError: result.isError === true, out: (result.structuredContent ?? {}) as Structured };
  } finally {
    await mcp.close();
    await server.close();
  }
}

/** A tool error as `<error> [verdict]`. */
const errorOutcome = (out: Structured) => [out.error, out.verdict].filter((part) => part !== undefined).join(' ');

/** `reseal_verify { lineageId }`: its verdict, or the tool error. */
export const mcpVerify: Reader = {
  name: 'mcp reseal_verify',
  read: async (setup, target, withCheckpoint) => {
    const { isError, out } = await callTool(setup, target, withCheckpoint, 'reseal_verify', {
      lineageId: target.lineageId,
    });
    return isError ? errorOutcome(out) : String(out.verdict);
  },
};

/**
 * `reseal_inspect { lineageId }` of the awaited write's lineage: its verdict (or the tool error),
 * then, when the answer carries the timeline, its rejections and conflicts as
 * `<reason> signed|unsigned`, oldest first: the signed ones from `rejections` and `conflicts`,
 * the unsigned ones from `untrusted` (docs/mcp.md, "Untrusted data").
 */
export const mcpInspect: Reader = {
  name: 'mcp reseal_inspect',
  read: async (setup, target, withCheckpoint) => {
    const { isError, out } = await callTool(setup, target, withCheckpoint, 'reseal_inspect', {
      lineageId: target.write.lineageId,
    });
    const head = isError ? errorOutcome(out) : String(out.verdict);
    if (!Array.isArray(out.rejections) || !Array.isArray(out.conflicts)) return head;
    // Signed items are listed with their time; unsigned ones only under `untrusted`, with `atMs`.
    const untrusted = (out.untrusted ?? {}) as { rejections?: Structured[]; conflicts?: Structured[] };
    const merged = (signed: Structured[], at: string, unsigned: Structured[] = []) =>
      [
        ...signed.map((item) => ({ ms: Date.parse(String(item[at])), reason: item.reason, signed: true })),
        ...unsigned.map((item) => ({ ms: Number(item.atMs), reason: item.reason, signed: false })),
      ].sort((a, b) => a.ms - b.ms);
    const list = (items: { reason: unknown; signed: boolean }[]) =>
      `[${items.map((item) => listedRefusal(item.reason, item.signed)).join(', ')}]`;
    return `${head} rejections ${list(merged(out.rejections, 'rejectedAt', untrusted.rejections))} conflicts ${list(merged(out.conflicts, 'conflictedAt', untrusted.conflicts))}`;
  },
};

/** `reseal_recall { lineageId, target, env }` of the cell's recall target: `TRIAGED <verdict>`, or the tool error. */
export const mcpRecall: Reader = {
  name: 'mcp reseal_recall',
  read: async (setup, target, withCheckpoint) => {
    const { isError, out } = await callTool(setup, target, withCheckpoint, 'reseal_recall', {
      lineageId: target.lineageId,
      target: target.recall,
      env: setup.currentEnv,
      timeoutMs: TOOL_WAIT_MS,
    });
    if (isError) return errorOutcome(out);
    return `${String(out.outcome)} ${String((out.verification as Structured | undefined)?.verdict)}`;
  },
};

/**
 * `reseal_write` of the awaited write (its arguments from `argsOf`, which must make exactly that
 * request: a write already sealed or refused in the table, so the wait reads its outcome):
 * `SEALED seq <n>`, or the tool error.
 */
export function mcpWrite(argsOf: (write: ResidualWriteRequest) => Record<string, unknown>): Reader {
  return {
    name: 'mcp reseal_write (wait)',
    read: async (setup, target, withCheckpoint) => {
      const { isError, out } = await callTool(setup, target, withCheckpoint, 'reseal_write', {
        ...argsOf(target.write),
        timeoutMs: TOOL_WAIT_MS,
      });
      if (isError) return errorOutcome(out);
      return `${String(out.outcome)} seq ${String(out.seq)}`;
    },
  };
}
