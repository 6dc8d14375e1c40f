import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createResealMcpServer } from '../../../mcp/server';
import type { TriageCompletedDetail } from '../../../shared/pipeline/triage-completed-detail';
import type { ConflictRecord, RejectionRecord } from '../../../shared/ports/lineage-store';
import { expectGuarantee, type Guarantee } from '../../helpers/guarantees';
import { expectConforming } from '../../helpers/mcp-conformance';
import { MCP_ENV, MCP_FIRST_WRITE, MCP_LINEAGE } from '../../helpers/mcp-fixtures';
import { staleEpochConflict, staleRejection } from '../../helpers/outcome-factories';
import { TEST_NOW_MS } from '../../helpers/seal-factories';
import { HOSTILE_ID, HOSTILE_TEXT, hostileTextPlacement } from '../../helpers/untrusted-text';
import { pipeline } from './pipeline';

// docs/mcp.md, "Untrusted data": text a table writer planted (ANSI escapes, CR/LF, U+2028, bidi
// overrides, an instruction) reaches an agent only inside an answer's `untrusted` field, escaped.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The pipeline in process, one write sealed through `reseal_write`, and a caller of its tools. */
async function sealedLineage() {
  const p = pipeline();
  const server = createResealMcpServer(p.deps(MCP_ENV));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: 'reseal-untrusted-text', version: '1.0.0' });
  await mcp.connect(clientSide);
  closers.push(async () => {
    await mcp.close();
    await server.close();
  });
  const { tools } = await mcp.listTools();
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    const tool = tools.find((t) => t.name === name);
    if (tool) expectConforming(tool, result);
    return result;
  };
  const sealed = await call('reseal_write', { ...MCP_FIRST_WRITE, residualId: 'r-1' });
  expect(sealed.isError).toBeFalsy();
  return { p, call };
}

/** Where a tool's answer shows the planted text: in `structuredContent` and in its JSON text. */
function placement(result: CallToolResult): string {
  const [summary, json] = result.content.map((c) => (c.type === 'text' ? c.text : ''));
  const structured = hostileTextPlacement(result.structuredContent as Record<string, unknown>);
  const text = hostileTextPlacement(JSON.parse(json ?? '{}'));
  const line = hostileTextPlacement({ summary });
  if (line !== 'not in untrusted') return `summary: ${line}`;
  return structured === text ? structured : `structuredContent: ${structured}; text: ${text}`;
}

/** An unsigned rejection with the hostile text in every text field a stored item has. */
const hostileRejection = (): RejectionRecord =>
  staleRejection(HOSTILE_ID, {
    lineageId: MCP_LINEAGE,
    messageId: HOSTILE_TEXT,
    reason: HOSTILE_TEXT as never,
    rejectedVariables: [{ name: HOSTILE_TEXT, reason: HOSTILE_TEXT, detail: HOSTILE_TEXT }],
    requestViolations: [{ field: HOSTILE_TEXT, reason: HOSTILE_TEXT, detail: HOSTILE_TEXT }],
    issues: [{ path: HOSTILE_TEXT, message: HOSTILE_TEXT }],
    atMs: TEST_NOW_MS + 1,
  });

/** An unsigned conflict with the hostile text in its detail and ids. */
const hostileConflict = (): ConflictRecord =>
  staleEpochConflict(HOSTILE_ID, {
    lineageId: MCP_LINEAGE,
    detail: HOSTILE_TEXT,
    reason: HOSTILE_TEXT as never,
    atMs: TEST_NOW_MS + 2,
  });

const row = (attack: string, target: string, reader: string): Guarantee => ({
  section: 'tampering',
  target,
  attack,
  reader,
  expected: 'only in untrusted, escaped',
});

describe('MCP tools in process: planted text only in the untrusted field, escaped', () => {
  it('reseal_inspect: an unsigned rejection and conflict full of control characters and an instruction', async (context) => {
    const { p, call } = await sealedLineage();
    await p.store.recordRejection(hostileRejection());
    await p.store.recordConflict(hostileConflict());
    const result = await call('reseal_inspect', { lineageId: MCP_LINEAGE });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as Record<string, unknown>;
    expect(out).toMatchObject({ verdict: 'VERIFIED_INTACT', rejections: [], conflicts: [] });
    expect(out.untrusted).toMatchObject({
      rejections: [{ residualId: HOSTILE_ID, issues: [{ message: expect.stringContaining('\\u001b[2J') }] }],
      conflicts: [{ detail: expect.stringContaining('\\u2028') }],
    });
    expectGuarantee(
      context,
      row(
        'insert an unsigned rejection and conflict whose text holds ANSI codes, CR/LF, U+2028, bidi overrides and an instruction',
        'rejection, conflict',
        'mcp reseal_inspect (in process)',
      ),
      placement(result),
    );
  });

  it('reseal_inspect: a record whose ids were edited to the text fails, and its text is only untrusted', async (context) => {
    const { p, call } = await sealedLineage();
    p.store.tamperRecord(MCP_LINEAGE, 0, (record) => {
      const header = record.header as Record<string, unknown>;
      header.sessionId = HOSTILE_TEXT;
      header.authority = HOSTILE_TEXT;
      header.residualId = HOSTILE_ID;
    });
    const result = await call('reseal_inspect', { lineageId: MCP_LINEAGE });
    expect(result.isError).toBe(true);
    const out = result.structuredContent as Record<string, unknown>;
    expect(out).toMatchObject({
      error: 'TAMPER_DETECTED',
      records: [{ seq: 0, sessionId: null, residualId: null, authority: null }],
      untrusted: { records: [{ residualId: HOSTILE_ID, sessionId: expect.stringContaining('\\u000d\\u000a') }] },
    });
    expectGuarantee(
      context,
      row(
        'edit a record header: sessionId, authority and residualId hold ANSI codes, CR/LF, U+2028, bidi overrides and an instruction',
        'record',
        'mcp reseal_inspect (in process)',
      ),
      placement(result),
    );
  });

  for (const refusalCode of ['NOT_FOUND', 'INVALID_REQUEST', 'MANIFEST_UNTRIAGEABLE'] as const) {
    it(`reseal_recall: a forged unproven ${refusalCode} answer whose reason and residual id carry the text`, async (context) => {
      const { p, call } = await sealedLineage();
      const read = p.store.getTriageReport.bind(p.store);
      p.store.getTriageReport = async (lineageId, requestId) => {
        const genuine = await read(lineageId, requestId);
        if (!genuine) return null;
        const forged: TriageCompletedDetail = {
          ...genuine,
          outcome: 'REFUSED',
          refusalCode,
          refusalReason: HOSTILE_TEXT,
          residualId: HOSTILE_ID,
          seq: null,
          verification: null,
          report: null,
          proof: null,
        };
        return forged;
      };
      const result = await call('reseal_recall', { lineageId: MCP_LINEAGE, env: MCP_ENV, timeoutMs: 5_000 });
      expect(result.isError).toBe(true);
      const out = result.structuredContent as Record<string, unknown>;
      expect(out.untrusted).toMatchObject({
        refusalReason: expect.stringContaining('\\u202e'),
        residualId: HOSTILE_ID,
      });
      expectGuarantee(
        context,
        row(
          `a forged unproven triage answer (${refusalCode}) whose reason and residual id hold ANSI codes, CR/LF, U+2028, bidi overrides and an instruction`,
          'triage report',
          'mcp reseal_recall (in process)',
        ),
        placement(result),
      );
    });
  }
});
