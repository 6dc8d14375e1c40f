/**
 * The scenario the MCP tests share: one lineage, its environment at write time, two claims with
 * their causal keys, and the first write of a resumed session (docs/mcp.md, "Tools").
 */

import { testLineageId } from './writer-factories';

/** The four tools `tools/list` must answer with, sorted by name (docs/mcp.md, "Tools"). */
export const MCP_TOOL_NAMES = ['reseal_inspect', 'reseal_recall', 'reseal_verify', 'reseal_write'] as const;

/** A self-certifying lineage id under the test policy (docs/authorship.md), so the test writer key may start it. */
export const MCP_LINEAGE = testLineageId('agent-7');

/** The environment at write time: `tool:os` structural, the two others causal keys of one claim each. */
export const MCP_ENV = { 'tool:node': 'v20.0.0', 'tool:npm': '10.0.0', 'tool:os': 'ubuntu-24.04' };

export const MCP_CLAIMS = {
  'node-builds': { content: 'npm run build passes', causalKeys: ['tool:node'] },
  'npm-ci-works': { content: { exit: 0 }, causalKeys: ['tool:npm'] },
};

/** `reseal_write` arguments of session `s-3` (epoch 3), which resumed `s-2` (epoch 2). */
export const MCP_FIRST_WRITE = {
  lineageId: MCP_LINEAGE,
  sessionId: 's-3',
  generationEpoch: 3,
  predecessor: { sessionId: 's-2', epoch: 2 },
  claims: MCP_CLAIMS,
  structuralKeys: ['tool:os'],
};
