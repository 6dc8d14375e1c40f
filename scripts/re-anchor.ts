/**
 * The operator's re-anchor of the deployment log after a legitimate restore
 * (docs/deployment-log.md, "Re-anchor"). Two commands:
 *
 *   npx tsx scripts/re-anchor.ts keygen --name reseal/recovery/ResealStack --out recovery.key
 *   npx tsx scripts/re-anchor.ts --stack ResealStack --recovery-key recovery.key --reason "…"
 *       (--witness-table NAME | --lost-size N --lost-root BASE64) [--out re-anchor-event.json] [--json]
 *
 * `keygen` writes a new recovery key (mode 0600, never overwriting) and prints its vkey, for the
 * `RECOVERY_KEYS` of the witness and the integrator. The second command authenticates the stored
 * deployment head with the log's public key, reads the witness's state (its own table, with the
 * witness account's credentials) or takes it as given, signs the statement with the recovery key,
 * and writes the integrator function's event `{ "reAnchor": <statement note> }`; the operator then
 * invokes the function with it (the command is printed). Only the integrator signs with the log
 * key, and only after it has checked the recovery signature; the witness checks it again.
 *
 * Exit codes: 0 written (or nothing to re-anchor), 20 the stored head does not authenticate,
 * 2 bad arguments, 1 unexpected error.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDeploymentLogStore } from '../adapters/dynamodb-deployment-log-store';
import { DynamoDBWitnessStore } from '../adapters/dynamodb-witness-store';
import { KMSNoteVerifierKey } from '../adapters/kms-note-verifier-key';
import { DEFAULT_STACK_NAME, resolveStackOutputs } from '../client/stack-outputs';
import { describeError } from '../shared/describe-error';
import { LogStateError, ReAnchorFormatError } from '../shared/errors';
import { authenticateDeploymentHead } from '../shared/integrator/deployment-head';
import {
  formatReAnchorStatement,
  type ReAnchorStatement,
  type TreeHead,
} from '../shared/integrator/re-anchor-statement';
import type { NoteVerifierKey } from '../shared/log/note-key';
import { generateNoteSignerKey, parseNoteSignerKey } from '../shared/log/note-signer-key';
import { signNote } from '../shared/log/signed-note';
import { decodeStrictBase64 } from '../shared/log/strict-base64';
import type { StoredDeploymentHead } from '../shared/ports/deployment-log-store';
import type { NoteSigner } from '../shared/ports/note-signer';

/** What {@link prepareReAnchor} needs: the stored head, the log key, what the witness holds, why, when. */
export interface ReAnchorInput {
  readonly head: StoredDeploymentHead | null;
  /** The log's verifier key; its name is the deployment log's origin. */
  readonly key: NoteVerifierKey;
  /** The witness's state: the newest checkpoint of the old history it cosigned. */
  readonly lost: TreeHead;
  readonly reason: string;
  /** The statement's `time`: the operator's clock now, POSIX seconds (never a chosen date; the integrator refuses one ahead of its clock). */
  readonly nowSeconds: number;
  /** The operator's recovery key. */
  readonly recovery: NoteSigner;
}

/**
 * The operator's statement for the stored head (docs/deployment-log.md, "Re-anchor"): the head
 * authenticated as the integrator does it (its size and root become `restored`), the witness's
 * state as `lost`, signed with the recovery key. `null` when the witness's state does not conflict
 * with the head (it is the head, or smaller: nothing to re-anchor).
 *
 * @throws {LogStateError} when the stored head does not authenticate with the log key
 * @throws {ReAnchorFormatError} for a reason that is not one printable line
 */
export async function prepareReAnchor(
  input: ReAnchorInput,
): Promise<{ readonly statement: ReAnchorStatement; readonly note: string } | null> {
  const previous = authenticateDeploymentHead(input.head, input.key, input.key.name);
  const restored = { size: previous.size, rootHash: previous.rootHash };
  const same = Buffer.compare(restored.rootHash, input.lost.rootHash) === 0;
  if (input.lost.size < restored.size || (input.lost.size === restored.size && same)) return null;
  const statement: ReAnchorStatement = {
    origin: input.key.name,
    restored,
    lost: input.lost,
    timeSeconds: input.nowSeconds,
    reason: input.reason,
  };
  return { statement, note: await signNote(formatReAnchorStatement(statement), input.recovery) };
}

/** The integrator function of the stack (its physical name), or `null` when CloudFormation does not show it. */
async function integratorFunction(stackName: string): Promise<string | null> {
  try {
    const out = await new CloudFormationClient({}).send(new DescribeStackResourcesCommand({ StackName: stackName }));
    const fn = out.StackResources?.find(
      (r) => r.ResourceType === 'AWS::Lambda::Function' && /^Integration/.test(r.LogicalResourceId ?? ''),
    );
    return fn?.PhysicalResourceId ?? null;
  } catch {
    return null;
  }
}

const USAGE = `usage: re-anchor keygen --name NAME --out FILE
       re-anchor [--stack NAME] --recovery-key FILE --reason TEXT (--witness-table NAME | --lost-size N --lost-root BASE64) [--out FILE] [--json]
(docs/deployment-log.md, "Re-anchor")\n`;

async function keygen(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: { name: { type: 'string' }, out: { type: 'string' } } });
  if (!values.name || !values.out) {
    process.stderr.write(USAGE);
    return 2;
  }
  const { skey, vkey } = await generateNoteSignerKey(values.name);
  await writeFile(values.out, `${skey}\n`, { mode: 0o600, flag: 'wx' });
  process.stdout.write(`${vkey}\n`);
  return 0;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'keygen') return keygen(argv.slice(1));
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        stack: { type: 'string' },
        'recovery-key': { type: 'string' },
        reason: { type: 'string' },
        'witness-table': { type: 'string' },
        'lost-size': { type: 'string' },
        'lost-root': { type: 'string' },
        out: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const keyFile = values['recovery-key'];
  const reason = values.reason;
  const lostRoot = typeof values['lost-root'] === 'string' ? decodeStrictBase64(values['lost-root']) : undefined;
  const lostSize = Number(values['lost-size']);
  const explicit = lostRoot?.byteLength === 32 && Number.isSafeInteger(lostSize) && lostSize >= 0;
  if (typeof keyFile !== 'string' || typeof reason !== 'string' || (!values['witness-table'] && !explicit)) {
    process.stderr.write(USAGE);
    return 2;
  }
  const stackName = typeof values.stack === 'string' ? values.stack : DEFAULT_STACK_NAME;
  const outputs = await resolveStackOutputs(stackName, new CloudFormationClient({}));
  const dynamodb = new DynamoDBClient({});
  const key = await new KMSNoteVerifierKey(new KMSClient({}), outputs.logKeyArn, outputs.logName).get();
  let lost: TreeHead;
  if (typeof values['witness-table'] === 'string') {
    const state = await new DynamoDBWitnessStore(dynamodb, values['witness-table']).read(key.name);
    if (!state) {
      process.stdout.write('the witness holds no checkpoint of this log: nothing to re-anchor\n');
      return 0;
    }
    lost = state;
  } else {
    lost = { size: lostSize, rootHash: lostRoot as Uint8Array };
  }
  let prepared: Awaited<ReturnType<typeof prepareReAnchor>>;
  try {
    prepared = await prepareReAnchor({
      head: await new DynamoDBDeploymentLogStore(dynamodb, outputs.tableName).readHead(),
      key,
      lost,
      reason,
      nowSeconds: Math.floor(Date.now() / 1000),
      recovery: await parseNoteSignerKey(await readFile(keyFile, 'utf8')),
    });
  } catch (error) {
    if (error instanceof LogStateError) {
      process.stderr.write(`the stored deployment head does not authenticate: ${error.message}\n`);
      return 20;
    }
    if (error instanceof ReAnchorFormatError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (prepared === null) {
    process.stdout.write("the witness's state does not conflict with the stored head: nothing to re-anchor\n");
    return 0;
  }
  const out = typeof values.out === 'string' ? values.out : 're-anchor-event.json';
  await writeFile(out, `${JSON.stringify({ reAnchor: prepared.note })}\n`, { flag: 'wx' });
  const fn = (await integratorFunction(stackName)) ?? "<the stack's integrator function>";
  const invoke = `aws lambda invoke --function-name ${fn} --payload fileb://${out} re-anchor-answer.json`;
  if (values.json) {
    const { restored, lost: lostHead } = prepared.statement;
    process.stdout.write(
      `${JSON.stringify({ event: out, invoke, restored_size: restored.size, lost_size: lostHead.size, note: prepared.note })}\n`,
    );
  } else {
    process.stdout.write(`${prepared.note}\nwritten to ${out}; now run:\n  ${invoke}\n`);
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`re-anchor failed: ${describeError(error)}\n`);
      process.exit(1);
    },
  );
}
