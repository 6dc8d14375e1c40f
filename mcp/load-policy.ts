import { readFile } from 'node:fs/promises';
import { DEFAULT_MAX_AGE_SECONDS, type FreshnessPolicy, freshnessPolicy } from '../client/freshness-policy';
import { describeError } from '../shared/describe-error';
import { InvalidInputError } from '../shared/errors';
import { MAX_POLICY_BYTES } from '../shared/witness/tlog-policy';
import type { McpServerConfig } from './config';

/**
 * The server's freshness policy (docs/mcp.md, "Freshness"): the tlog-policy of `RESEAL_POLICY`
 * with `RESEAL_POLICY_MAX_AGE`, or `null` for the stack's default. Read at start-up, so a bad
 * policy fails there, naming the variable.
 *
 * @throws {InvalidInputError} at `RESEAL_POLICY` when the file cannot be read or is not a valid
 *   tlog-policy (naming the line), or at `RESEAL_POLICY_MAX_AGE` when it is set without a policy
 */
export async function loadPolicy(config: McpServerConfig): Promise<FreshnessPolicy | null> {
  const file = config.policyFile;
  const maxAge = config.policyMaxAgeSeconds ?? null;
  const refuse = (path: string, message: string, cause?: unknown): never => {
    throw new InvalidInputError('MCP server environment', [{ path, message }], cause ? { cause } : undefined);
  };
  if (!file) {
    if (maxAge !== null) refuse('RESEAL_POLICY_MAX_AGE', 'needs RESEAL_POLICY (the default policy has no witness)');
    return null;
  }
  let text = '';
  try {
    const bytes = await readFile(file);
    if (bytes.byteLength > MAX_POLICY_BYTES)
      refuse('RESEAL_POLICY', `${file} is larger than ${MAX_POLICY_BYTES} bytes`);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    refuse('RESEAL_POLICY', `cannot read the policy ${file}: ${describeError(error)}`, error);
  }
  try {
    return freshnessPolicy(text, maxAge ?? DEFAULT_MAX_AGE_SECONDS);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return refuse('RESEAL_POLICY', `${file} is not a valid tlog-policy: ${error.message}`, error);
  }
}
