/**
 * Public surface of the Reseal MCP server (`reseal/mcp`; `reseal mcp` serves it on stdio).
 * docs/mcp.md describes the tools, their arguments and answers, and the configuration.
 */
export {
  connectMcpDeps,
  type McpConfigOverrides,
  McpEnvironmentSchema,
  type McpServerConfig,
  mcpConfigFrom,
  readStackOutputsFile,
  resolveMcpClient,
} from './config';
export { DEFAULT_TOOL_WAIT_MS, type McpClient, type ResealMcpDeps } from './context';
export { createResealMcpServer, SERVER_INFO, serveStdio } from './server';
export { MissingPart, type StackPlace, StackUnavailableError } from './stack-unavailable';
export {
  InspectOutput,
  RecallOutput,
  SignedCheckpointOutput,
  type ToolError,
  ToolErrorCode,
  ToolErrorSchema,
  VerifyOutput,
  WriteSealedOutput,
} from './tool-outputs';
export { INSPECT_TOOL, InspectInputSchema } from './tools/inspect';
export { RECALL_TOOL, RecallInputSchema } from './tools/recall';
export { VERIFY_TOOL, VerifyInputSchema } from './tools/verify';
export { WRITE_TOOL, WriteInputSchema } from './tools/write';
