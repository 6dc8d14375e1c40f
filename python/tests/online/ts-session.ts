/**
 * The TypeScript `ResealSession` (reseal/openai-agents) for the Python package's cross-language
 * session test (test_session_across_languages.py): binds a session to the lineage named by the
 * arguments, with the Python client's writer key file and checkpoint store file, runs the ops
 * given as JSON (`{"add": [items]}`, `"pop"`, `"clear"`), then prints one JSON line: the live
 * items, proven (`getItems()`), and what `popItem` returned. The stack comes from the stack pin
 * (`RESEAL_STACK_FILE`) and `AWS_ENDPOINT_URL`.
 *
 * Usage: ts-session.ts <writer key file> <lineage id> <checkpoints file> <session id> <epoch> <ops JSON>
 */
import { readFileSync } from 'node:fs';
import type { AgentInputItem } from '@openai/agents-core';
import { FileCheckpointStore } from '../../../client/file-checkpoint-store';
import { pinnedStackOf, StackPinSchema } from '../../../client/stack-pin';
import { ResealSession } from '../../../frameworks/openai-agents/reseal-session';

const [writerKeyFile, lineageId, checkpoints, sessionId, epoch, opsJson] = process.argv.slice(2);
if (!opsJson) throw new Error('usage: ts-session.ts <key file> <lineage id> <checkpoints> <session id> <epoch> <ops>');
const pin = pinnedStackOf(StackPinSchema.parse(JSON.parse(readFileSync(process.env.RESEAL_STACK_FILE ?? '', 'utf8'))));
const session = await ResealSession.connect({
  writerKeyFile,
  lineageId,
  sessionId,
  generationEpoch: Number(epoch),
  checkpointStore: new FileCheckpointStore(checkpoints),
  stack: {
    stackName: pin.stackName,
    outputs: pin.outputs,
    logKey: pin.logKey,
    guardKey: pin.guardKey,
    sealerKey: pin.sealerKey,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  },
  timeoutMs: 90_000,
});
const popped: unknown[] = [];
for (const op of JSON.parse(opsJson) as Array<{ add: AgentInputItem[] } | 'pop' | 'clear'>) {
  if (op === 'pop') popped.push((await session.popItem()) ?? null);
  else if (op === 'clear') await session.clearSession();
  else await session.addItems(op.add);
}
process.stdout.write(`${JSON.stringify({ items: await session.getItems(), popped })}\n`);
