import type { Command } from 'commander';
import { mcpConfigFrom } from '../../mcp/config';
import { connectMcpDeps } from '../../mcp/connect-mcp-deps';
import { serveStdio } from '../../mcp/serve-stdio';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';

/** Options of `reseal mcp`. */
interface McpOptions {
  readonly stack?: string;
  readonly outputsFile?: string;
  readonly checkpoints?: string;
  readonly config?: string;
  readonly policy?: string;
  readonly remote?: string;
}

/**
 * `reseal mcp`: serves the Reseal MCP server (docs/mcp.md) on stdio until the host closes
 * standard input; with `--remote URL`, relays the host to the stack's remote MCP server instead
 * (SigV4-signed Streamable HTTP; docs/mcp.md, "Remote MCP"). Standard output carries only
 * JSON-RPC; the command prints nothing itself.
 */
export function registerMcp(program: Command, ctx: CommandContext): void {
  program
    .command('mcp')
    .summary('serve the Reseal tools to an agent host over MCP (stdio)')
    .description(
      'Serves the MCP tools reseal_write, reseal_recall, reseal_verify and reseal_inspect on stdio until standard input closes. ' +
        'Configured by the environment (RESEAL_STACK or RESEAL_STACK_OUTPUTS, AWS_REGION, AWS_ENDPOINT_URL, RESEAL_CHECKPOINTS, RESEAL_CONFIG); ' +
        'the options below win over it. See docs/mcp.md.',
    )
    .option('--stack <name>', 'CloudFormation stack of the deployment (default: RESEAL_STACK, else ResealStack)')
    .option('--outputs-file <OUTPUTS.json>', 'the stack outputs as a file instead (cdk deploy --outputs-file)')
    .option('--checkpoints <FILE.json>', 'where to keep the last verified checkpoint of each lineage')
    .option('--config <reseal.config.json>', 'snapshot providers (default: ./reseal.config.json when present)')
    .option(
      '--policy <FILE>',
      "C2SP tlog-policy the deployment checkpoints must meet (default: RESEAL_POLICY, else the stack's log key alone, UNWITNESSED)",
    )
    .option(
      '--remote <URL>',
      "relay to the stack's remote MCP server (its McpUrl output), signing each request with SigV4 (execute-api) with your AWS credentials",
    )
    .action(async (options: McpOptions) => {
      if (options.remote !== undefined) {
        const local = (['stack', 'outputsFile', 'checkpoints', 'config', 'policy'] as const).filter((o) => options[o]);
        if (local.length > 0) {
          throw new BadInputError(
            `mcp --remote relays to the remote server, which has its own stack: drop ${local.map((o) => `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`,
          );
        }
        const { remoteMcpUrl, runRemoteBridge } = await import('../remote-mcp');
        await runRemoteBridge(remoteMcpUrl(options.remote), ctx.io.env);
        ctx.exit(ExitCode.OK);
        return;
      }
      const config = mcpConfigFrom(
        ctx.io.env,
        {
          ...(options.stack ? { stackName: options.stack } : {}),
          ...(options.outputsFile ? { outputsFile: options.outputsFile } : {}),
          ...(options.checkpoints ? { checkpointsFile: options.checkpoints } : {}),
          ...(options.config ? { configFile: options.config } : {}),
          ...(options.policy ? { policyFile: options.policy } : {}),
        },
        ctx.io.cwd,
      );
      // Reaches no AWS: the stack is resolved at the first tool call (docs/mcp.md, "Start-up and an unreachable stack").
      const deps = await connectMcpDeps(config, { nowMs: ctx.io.nowMs });
      await serveStdio(deps);
      ctx.exit(ExitCode.OK);
    });
}
