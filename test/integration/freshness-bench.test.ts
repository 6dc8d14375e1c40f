import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { freshnessClient, measureFreshness } from '../../bench/stack/freshness-bench';
import { benchLineageId } from '../../bench/stack/stack-bench';
import { defaultPolicyText, freshnessPolicy } from '../../client/freshness-policy';
import { deployedStack } from '../helpers/deployed-stack';

// The freshness bench's scenario (bench/stack/freshness-bench.ts, `npm run bench:freshness`) at a
// tiny count on the stack the integration run deployed, so the scenario cannot rot silently: every
// write published is proven through the deployment chain, and what it counts is produced. The
// test stack is unwitnessed (the default policy, the log alone) and its functions call the
// emulator directly, so no Sign is observed here; the bench deploys a witness and a counting proxy.
const { stack, endpoint, kms, dynamodb } = deployedStack();

describe('the freshness bench scenario on the deployed stack (docs/deployment-log.md, "Freshness window and interval")', () => {
  it('2 lineages × 1 write/s × 2 s: every write proven under a published deployment checkpoint', async () => {
    const logKey = await new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName).get();
    const client = freshnessClient(stack, endpoint, freshnessPolicy(defaultPolicyText(logKey)));
    const run = randomUUID().slice(0, 8);
    const measured = await measureFreshness(client, new DynamoDBDeploymentLogStore(dynamodb, stack.TableName), null, {
      lineages: [benchLineageId(`fresh-it-${run}-a`), benchLineageId(`fresh-it-${run}-b`)],
      seconds: 2,
      timeoutMs: 240_000,
    });
    expect(measured.writes).toBe(4);
    expect(measured.nominalWritesPerSecond).toBe(2);
    expect(measured.provenMs).toHaveLength(4);
    expect(measured.provenMs.every((ms) => ms > 0)).toBe(true);
    expect(measured.publishedSizes.length).toBeGreaterThan(0);
    expect(measured.signs.size).toBe(0);
  });
});
