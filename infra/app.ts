#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { App, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { deploySettingsFromContext } from '../shared/cost/deploy-settings';
import { headLayoutOf } from '../shared/ports/head-layout';
import { parseTenants } from '../shared/tenancy/tenants';
import { ResealStack } from './reseal-stack';
import { WitnessStack } from './witness-stack';

/**
 * The CDK app: one stack, `ResealStack`. Context values (`-c name=value` or cdk.json):
 * - `removalPolicy`: `destroy` (default, development) | `retain` | `snapshot`;
 * - `deletionProtection`: `true` | `false` (default) — DynamoDB deletion protection;
 * - `tableCapacity`: `on-demand` (default) | `provisioned` — the lineage table's billing, with
 *   `tableMinCapacity` / `tableMaxCapacity` (whole capacity units; default 5 and 40,000) when
 *   provisioned (the stack's props of those names);
 * - `integrationIntervalSeconds`: the integration interval, whole seconds 1 to 300 (the stack's
 *   prop; default `DEFAULT_INTEGRATION_INTERVAL_SECONDS`, 2);
 * - `endpointOverride`: an emulator endpoint passed to the functions as `AWS_ENDPOINT_URL`
 *   (only for emulators that do not set it themselves; never for real AWS);
 * - `endpointOverrides`: a JSON object of endpoints by function, keyed by Powertools service name
 *   (`{"reseal-guard": "http://…", …}`), each over `endpointOverride` for that function (the
 *   stack's prop; the emulator bench counts each function's calls apart with it; never for real AWS);
 * - `maxReceiptAgeSeconds`: the guard's receipt age limit (default `DEFAULT_MAX_RECEIPT_AGE_SECONDS`, 900);
 * - `guardBatchingWindowSeconds`: the guard's event source batching window, whole seconds 0 to 300, its
 *   wait at most a quarter of the receipt age
 *   (the stack's `guardBatchingWindowSeconds` prop; default `DEFAULT_GUARD_BATCHING_WINDOW_SECONDS`, 0: none);
 * - `stackName`: deploy under another name (default `ResealStack`);
 * - `witnessLogKeys`: the log vkey(s) a witness cosigns for; when given, the app also holds
 *   `ResealWitnessStack` (docs/witness.md, "Deployment"), named by `witnessStackName` and with
 *   the cosigner name `witnessName` when given. Without it the app is `ResealStack` alone, as before;
 * - `tenants`: the stack's tenants, a JSON array of `{ id, senderPrincipals, signerPrincipals?, readerPrincipals? }`
 *   (docs/infrastructure.md, "Tenants"); without it, one tenant.
 * - `recoveryKeys` / `witnessRecoveryKeys`: the operator's recovery vkeys the integrator / the
 *   witness require on a re-anchor statement (docs/deployment-log.md, "Re-anchor"); default none.
 * - `witnessUrl`, `witnessPolicyFile` (a file holding the policy text: context values are one line) and
 *   `witnessMaxAgeSeconds`: the witness the
 *   integrator submits to (the stack's `witness` prop, docs/witness.md "Deploy order", step 3),
 *   which also deploys the heartbeat schedule; `heartbeatRateMinutes` its period (default 1).
 * - `signLineageCheckpoints`: `true` has the sealer also sign a lineage checkpoint per run, with
 *   `kms:Sign` on the log key (the stack's `signLineageCheckpoints` prop; docs/deployment-log.md,
 *   "What changes for the sealer"); default `false`.
 * - `headLayout`: `compatible` or `small`, the head item the sealer writes (the stack's
 *   `headLayout` prop; docs/sealing.md, "Migration"); default `small`.
 * - `mcpPolicyFile` (a file holding a tlog-policy) and `mcpPolicyMaxAgeSeconds`: the policy the
 *   remote MCP server checks freshness under (the stack's `mcpPolicy` prop, docs/mcp.md,
 *   "Freshness"); default the witness's policy, else the stack's log key alone.
 */
const app = new App();

const removalPolicies: Record<string, RemovalPolicy> = {
  destroy: RemovalPolicy.DESTROY,
  retain: RemovalPolicy.RETAIN,
  snapshot: RemovalPolicy.SNAPSHOT,
};
const context = (name: string): string | undefined => {
  const value = app.node.tryGetContext(name);
  return value === undefined || value === null || value === '' ? undefined : String(value);
};

const removalPolicyName = context('removalPolicy') ?? 'destroy';
const removalPolicy = removalPolicies[removalPolicyName];
if (!removalPolicy) {
  throw new Error(`context removalPolicy=${removalPolicyName}: expected destroy, retain or snapshot`);
}
const maxReceiptAge = context('maxReceiptAgeSeconds');
// The settings the cost of a write depends on, parsed as `reseal deploy` checks them before it
// runs the CDK (whole numbers in decimal digits, a mode the stack names): one parser for both.
const settings = deploySettingsFromContext(
  Object.fromEntries(
    [
      'guardBatchingWindowSeconds',
      'integrationIntervalSeconds',
      'tableCapacity',
      'tableMinCapacity',
      'tableMaxCapacity',
    ].map((name) => [name, app.node.tryGetContext(name)]),
  ),
);
// `-c tenants='[…]'` gives a string, cdk.json an array; parseTenants (in the stack) checks either.
const tenantsContext: unknown = app.node.tryGetContext('tenants');
const tenantsJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(
      `context tenants: not JSON (${(error as Error).message}); expected [{ "id": …, "senderPrincipals": [ARN, …] }, …]`,
    );
  }
};
const tenants =
  tenantsContext === undefined || tenantsContext === null || tenantsContext === ''
    ? undefined
    : parseTenants(typeof tenantsContext === 'string' ? tenantsJson(tenantsContext) : tenantsContext);
// `-c endpointOverrides='{…}'` gives a string, cdk.json an object: either must map names to URLs.
const endpointOverridesContext: unknown = app.node.tryGetContext('endpointOverrides');
const endpointOverrides = ((): Record<string, string> | undefined => {
  if (endpointOverridesContext === undefined || endpointOverridesContext === null || endpointOverridesContext === '')
    return undefined;
  let value: unknown = endpointOverridesContext;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (error) {
      throw new Error(`context endpointOverrides: not JSON (${(error as Error).message})`);
    }
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((url) => typeof url === 'string')
  ) {
    throw new Error('context endpointOverrides: expected { "<service name>": "<url>", … }');
  }
  return value as Record<string, string>;
})();
const witnessUrl = context('witnessUrl');
const witnessMaxAge = context('witnessMaxAgeSeconds');
const witnessPolicyFile = context('witnessPolicyFile');
if (witnessUrl !== undefined && witnessPolicyFile === undefined) {
  throw new Error('context witnessUrl needs witnessPolicyFile (the tlog-policy the integrator publishes under)');
}
const heartbeatRateMinutes = context('heartbeatRateMinutes');
const signLineageCheckpoints = context('signLineageCheckpoints');
if (signLineageCheckpoints !== undefined && signLineageCheckpoints !== 'true' && signLineageCheckpoints !== 'false') {
  throw new Error(`context signLineageCheckpoints=${signLineageCheckpoints}: expected true or false`);
}
const headLayout = context('headLayout');
const mcpPolicyFile = context('mcpPolicyFile');
const mcpPolicyMaxAge = context('mcpPolicyMaxAgeSeconds');
if (mcpPolicyMaxAge !== undefined && mcpPolicyFile === undefined) {
  throw new Error('context mcpPolicyMaxAgeSeconds needs mcpPolicyFile (the tlog-policy the remote MCP checks)');
}

new ResealStack(app, 'ResealStack', {
  stackName: context('stackName'),
  description: 'Reseal: tamper-evident, drift-aware memory for AI agents',
  removalPolicy,
  deletionProtection: context('deletionProtection') === 'true',
  tableCapacity: settings.tableCapacity.mode,
  tableMinCapacity: settings.tableCapacity.mode === 'provisioned' ? settings.tableCapacity.minCapacity : undefined,
  tableMaxCapacity: settings.tableCapacity.mode === 'provisioned' ? settings.tableCapacity.maxCapacity : undefined,
  endpointOverride: context('endpointOverride'),
  endpointOverrides,
  maxReceiptAgeSeconds: maxReceiptAge === undefined ? undefined : Number(maxReceiptAge),
  guardBatchingWindowSeconds: settings.guardBatchingWindowSeconds,
  integrationIntervalSeconds: settings.integrationIntervalSeconds,
  tenants,
  recoveryKeys: context('recoveryKeys'),
  witness:
    witnessUrl === undefined
      ? undefined
      : {
          url: witnessUrl,
          policy: readFileSync(witnessPolicyFile ?? '', 'utf8'),
          maxAgeSeconds: witnessMaxAge === undefined ? undefined : Number(witnessMaxAge),
        },
  heartbeatRate: heartbeatRateMinutes === undefined ? undefined : Duration.minutes(Number(heartbeatRateMinutes)),
  signLineageCheckpoints: signLineageCheckpoints === undefined ? undefined : signLineageCheckpoints !== 'false',
  // A value that names no layout fails the synth (headLayoutOf throws).
  headLayout: headLayout === undefined ? undefined : headLayoutOf(headLayout),
  mcpPolicy:
    mcpPolicyFile === undefined
      ? undefined
      : {
          policy: readFileSync(mcpPolicyFile, 'utf8'),
          maxAgeSeconds: mcpPolicyMaxAge === undefined ? undefined : Number(mcpPolicyMaxAge),
        },
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

const witnessLogKeys = context('witnessLogKeys');
if (witnessLogKeys !== undefined) {
  new WitnessStack(app, 'ResealWitnessStack', {
    stackName: context('witnessStackName'),
    description: 'Reseal witness: C2SP tlog-witness cosigning the deployment log',
    logKeys: witnessLogKeys,
    witnessName: context('witnessName'),
    recoveryKeys: context('witnessRecoveryKeys'),
    removalPolicy,
    endpointOverride: context('endpointOverride'),
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
}
