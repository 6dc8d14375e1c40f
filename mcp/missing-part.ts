/**
 * What the MCP server lacks to reach its stack (docs/mcp.md, "Start-up and an unreachable
 * stack"), in the order it checks them:
 * - `outputs`: the `RESEAL_STACK_OUTPUTS` file is missing, unreadable or lacks an output, or the
 *   stack has no such output;
 * - `region`: no region from `AWS_REGION`, `AWS_DEFAULT_REGION` or the profile;
 * - `credentials`: the SDK's credential chain found none, or AWS refused the ones it found;
 * - `stack`: no CloudFormation stack of that name in that account and region;
 * - `endpoint`: the endpoint does not answer (an emulator not started, no network).
 */
export const MissingPart = {
  OUTPUTS: 'outputs',
  REGION: 'region',
  CREDENTIALS: 'credentials',
  STACK: 'stack',
  ENDPOINT: 'endpoint',
} as const;

/** One of {@link MissingPart}. */
export type MissingPart = (typeof MissingPart)[keyof typeof MissingPart];
