/**
 * Public surface of the Reseal MCP server (`reseal/mcp`; `reseal mcp` serves it on stdio).
 * docs/mcp.md describes the tools, their arguments and answers, and the configuration.
 */

export { SignedCheckpointOutput } from '../client/shapes/signed-checkpoint-output';
export { type McpConfigOverrides, type McpServerConfig, mcpConfigFrom } from './config';
export { connectMcpDeps } from './connect-mcp-deps';
export { McpEnvironmentSchema } from './mcp-environment-schema';
export { MissingPart } from './missing-part';
// The shapes of the tools' `structuredContent` (docs/mcp.md, "Tools"), one per file in outputs/,
// advertised as each tool's `outputSchema`: successes only (a refusal or a tamper verdict is a
// tool error whose `structuredContent` is a `ToolErrorSchema`); camelCase, fields only ever added.
export { InspectOutput } from './outputs/inspect-output';
export { RecallOutput } from './outputs/recall-output';
export { ToolErrorCode } from './outputs/tool-error-code';
export { type ToolError, ToolErrorSchema } from './outputs/tool-error-schema';
export { VerifyOutput } from './outputs/verify-output';
export { WriteSealedOutput } from './outputs/write-sealed-output';
export { readStackOutputsFile } from './read-stack-outputs-file';
export type { McpClient, ResealMcpDeps } from './reseal-mcp-deps';
export { resolveMcpClient } from './resolve-mcp-client';
export { serveStdio } from './serve-stdio';
export { createResealMcpServer, SERVER_INFO } from './server';
export { type StackPlace, StackUnavailableError } from './stack-unavailable';
export { INSPECT_TOOL, InspectInputSchema } from './tools/inspect';
export { RECALL_TOOL, RecallInputSchema } from './tools/recall';
export { VERIFY_TOOL, VerifyInputSchema } from './tools/verify';
export { WRITE_TOOL, WriteInputSchema } from './tools/write';
export { DEFAULT_TOOL_WAIT_MS } from './wait-ms';
