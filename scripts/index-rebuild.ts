/**
 * The operator's index rebuild (docs/deployment-log.md, "Index rebuild"): restores the
 * verifiable index nodes the lineage table lost, re-derived from the authenticated lineages, and
 * writes them only when they hash to the index root the signed deployment head commits to.
 *
 *   npx tsx scripts/index-rebuild.ts [--stack ResealStack] [--json]
 *
 * AWS configuration as for the CLI's online commands (credentials, region, `AWS_ENDPOINT_URL`
 * for an emulator). Exit codes: 0 rebuilt or intact, 20 the rebuilt root differs (nothing
 * written), 2 bad arguments, 1 unexpected error.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDeploymentLogStore } from '../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../adapters/dynamodb-index-node-store';
import { DynamoDBLineageStore } from '../adapters/dynamodb-lineage-store';
import { KMSNoteVerifierKey } from '../adapters/kms-note-verifier-key';
import { LINEAGE_KEY_PREFIX, LineageKeys } from '../adapters/lineage-keys';
import { DEFAULT_STACK_NAME, resolveStackOutputs } from '../client/stack-outputs';
import { type IndexRebuildReport, rebuildIndexFromTable } from '../functions/integrator/index-rebuild';
import { describeError } from '../shared/describe-error';

/** Every lineage id with a head item in the table (one paginated `Scan`, head items only). */
export async function scanLineageIds(client: DynamoDBClient, tableName: string): Promise<string[]> {
  const ids: string[] = [];
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression: 'begins_with(pk, :prefix) AND sk = :head',
      ExpressionAttributeValues: { ':prefix': { S: LINEAGE_KEY_PREFIX }, ':head': { S: LineageKeys.head } },
      ProjectionExpression: 'pk',
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const pk = item.pk?.S;
      if (pk?.startsWith(LINEAGE_KEY_PREFIX)) ids.push(pk.slice(LINEAGE_KEY_PREFIX.length));
    }
  }
  return ids.sort();
}

/** One line per outcome, for an operator. */
export function describeRebuild(report: IndexRebuildReport): string[] {
  const lines = report.unreadable.map((u) => `lineage ${u.lineageId} left out: ${u.reason}`);
  const { result } = report;
  if (result === null) return [...lines, 'the deployment log is empty: no index to rebuild'];
  if (result.kind === 'INTACT')
    return [...lines, `index ${report.committedRoot}: every node is stored; nothing written`];
  if (result.kind === 'REBUILT') {
    return [...lines, `index ${report.committedRoot} rebuilt: ${result.tilesWritten} tile(s) written`];
  }
  const rebuilt = result.rebuiltRoot ? ` (rebuilt root ${Buffer.from(result.rebuiltRoot).toString('hex')})` : '';
  return [
    ...lines,
    `the rebuilt index does not match the signed index root ${report.committedRoot}${rebuilt}: ${result.reason}; nothing written`,
  ];
}

/** The report as JSON: sizes as an object, roots as hex. */
export function rebuildJson(report: IndexRebuildReport): unknown {
  const { result } = report;
  const json =
    result?.kind === 'REBUILT'
      ? { ...result, sizes: Object.fromEntries(result.sizes) }
      : result?.kind === 'MISMATCH'
        ? { ...result, rebuiltRoot: result.rebuiltRoot && Buffer.from(result.rebuiltRoot).toString('hex') }
        : result;
  return { ...report, result: json };
}

async function main(): Promise<number> {
  let values: { stack?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { stack: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: index-rebuild [--stack NAME] [--json]\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write('usage: index-rebuild [--stack NAME] [--json]  (docs/deployment-log.md, "Index rebuild")\n');
    return 0;
  }
  const stackName = values.stack ?? DEFAULT_STACK_NAME;
  const outputs = await resolveStackOutputs(stackName, new CloudFormationClient({}));
  const dynamodb = new DynamoDBClient({});
  const key = await new KMSNoteVerifierKey(new KMSClient({}), outputs.logKeyArn, outputs.logName).get();
  const report = await rebuildIndexFromTable(
    {
      lineages: new DynamoDBLineageStore(dynamodb, outputs.tableName),
      deployment: new DynamoDBDeploymentLogStore(dynamodb, outputs.tableName),
      index: new DynamoDBIndexNodeStore(dynamodb, outputs.tableName),
      key,
    },
    await scanLineageIds(dynamodb, outputs.tableName),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rebuildJson(report))}\n`);
  } else {
    process.stdout.write(`${describeRebuild(report).join('\n')}\n`);
  }
  return report.result?.kind === 'MISMATCH' ? 20 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`index rebuild failed: ${describeError(error)}\n`);
      process.exit(1);
    },
  );
}
