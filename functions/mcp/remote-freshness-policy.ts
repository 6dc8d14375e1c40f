import { type FreshnessPolicy, freshnessPolicy } from '../../client/freshness-policy';
import { InvalidInputError, ResealError } from '../../shared/errors';

/** The remote MCP function's policy settings, as its environment gives them (docs/mcp.md, "Remote MCP", "Freshness"). */
export interface RemoteFreshnessPolicySettings {
  /** `FRESHNESS_POLICY`: the C2SP tlog-policy text; unset or empty: the stack's default (its log key alone). */
  readonly policy?: string;
  /** `FRESHNESS_MAX_AGE_SECONDS`: the policy's maximum age of a quorum of cosignatures, whole seconds. */
  readonly maxAgeSeconds?: string;
  /** `INTEGRATION_INTERVAL_SECONDS`: the stack's integration interval, whole seconds. */
  readonly intervalSeconds?: string;
}

/**
 * The policy the remote MCP server checks deployment checkpoints against (docs/mcp.md,
 * "Freshness"), read once at cold start with the same reader as every client's
 * (`freshnessPolicy`, client/freshness-policy.ts), so a remote answer's `freshness` is decided as
 * a local one's under `RESEAL_POLICY`. The policy must name the stack's own log (origin
 * `logName`): a policy of another log would refuse every chain.
 *
 * @param logName - the stack's log name, `reseal/<stackName>` (`LOG_NAME`)
 * @returns the policy, or `null` when none is set: the stack's default (log key alone, `quorum none`)
 * @throws {InvalidInputError} naming the variable, for a malformed policy, a maximum age or interval
 *   that is not a positive whole number of seconds (checked with or without a policy), or a policy
 *   that names no log of origin `logName`; the cold start then fails
 */
export function remoteFreshnessPolicy(
  settings: RemoteFreshnessPolicySettings,
  logName: string,
): FreshnessPolicy | null {
  const refuse = (path: string, message: string, cause?: unknown): never => {
    throw new InvalidInputError('remote MCP freshness policy', [{ path, message }], { cause });
  };
  const seconds = (path: string, text: string | undefined): number | undefined => {
    if (text === undefined || text === '') return undefined;
    const value = Number(text);
    if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
      refuse(path, `expected a positive whole number of seconds, got ${JSON.stringify(text.slice(0, 32))}`);
    }
    return value;
  };
  const maxAge = seconds('FRESHNESS_MAX_AGE_SECONDS', settings.maxAgeSeconds);
  const interval = seconds('INTEGRATION_INTERVAL_SECONDS', settings.intervalSeconds);
  if (settings.policy === undefined || settings.policy === '') return null;
  let policy: FreshnessPolicy;
  try {
    policy = freshnessPolicy(settings.policy, maxAge, interval);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return refuse('FRESHNESS_POLICY', `not a valid tlog-policy: ${error.message}`, error);
  }
  if (!policy.policy.logs.some((log) => log.key.name === logName)) {
    refuse('FRESHNESS_POLICY', `names no log of origin ${logName}, the stack's log`);
  }
  return policy;
}
