import { z } from 'zod';
import { TenantId } from '../shared/tenancy/tenants';

const Path = z.string().min(1).max(4096);

/**
 * The environment variables the MCP server is configured by (docs/mcp.md, "Configuration"); an
 * agent never passes AWS details in a tool call. Empty values count as absent.
 */
export const McpEnvironmentSchema = z.object({
  /** CloudFormation stack of the deployment (default `ResealStack`), read with `DescribeStacks`. */
  RESEAL_STACK: z.string().min(1).max(128).optional(),
  /** Or the stack's outputs as a file (`cdk deploy --outputs-file`, or a flat `{ TableName, … }`). */
  RESEAL_STACK_OUTPUTS: Path.optional(),
  /** File where the client keeps the last verified signed checkpoint of each lineage (default: in memory only). */
  RESEAL_CHECKPOINTS: Path.optional(),
  /** The snapshot providers' config (default: `reseal.config.json` in the working directory, if any). */
  RESEAL_CONFIG: Path.optional(),
  /** The writer key every `reseal_write` is signed with: a PKCS #8 PEM Ed25519 key file (docs/authorship.md). */
  RESEAL_WRITER_KEY: Path.optional(),
  /** Or a KMS `ECC_NIST_EDWARDS25519` key ARN (`kms:Sign`, `kms:GetPublicKey`). */
  RESEAL_WRITER_KMS_KEY: z.string().min(1).max(2048).optional(),
  /**
   * The tenant the server acts for in a stack with tenants (docs/mcp.md, "Tenants"): recalls carry
   * its source, and a tool naming a lineage outside `<tenant>/` is the tool error `TENANT_MISMATCH`.
   */
  RESEAL_TENANT: TenantId.optional(),
  /**
   * A C2SP tlog-policy file the deployment checkpoints must meet (docs/mcp.md, "Freshness"); default
   * the stack's log key alone (`quorum none`, UNWITNESSED).
   */
  RESEAL_POLICY: Path.optional(),
  /** The policy's maximum age of a quorum of cosignatures, whole seconds (default 180; needs `RESEAL_POLICY`). */
  RESEAL_POLICY_MAX_AGE: z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, 'expected a positive whole number of seconds')
    .optional(),
  AWS_REGION: z.string().min(1).optional(),
  AWS_DEFAULT_REGION: z.string().min(1).optional(),
  /** An emulator's endpoint (MiniStack, LocalStack); real AWS when absent. */
  AWS_ENDPOINT_URL: z.url().optional(),
});
