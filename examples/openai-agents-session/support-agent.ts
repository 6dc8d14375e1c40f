/**
 * An OpenAI Agents SDK agent whose conversation is kept in a Reseal lineage
 * (docs/frameworks.md, "OpenAI Agents SDK (TypeScript)"). The SDK's own run loop drives it, with
 * its scripted test model instead of a model call, so it runs offline against a deployed stack
 * (the emulator: `AWS_ENDPOINT_URL`, as in docs/infrastructure.md, "By hand"):
 *
 *   npx tsx examples/openai-agents-session/support-agent.ts [--state .reseal] [--stack ResealStack]
 *
 * Two turns, each item sealed as it is added; the second turn's model input is the proven
 * history; then `popItem` seals a tombstone and the history still verifies. The writer key and the
 * kept checkpoints live in `--state`: run it again with the same folder and the conversation goes on.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, run, setTracingDisabled } from '@openai/agents-core';
import { assistantMessage, ScriptedModel } from '@openai/agents-core/testing';
import { FileCheckpointStore } from 'reseal';
import { ResealSession } from 'reseal/openai-agents';

const { values } = parseArgs({
  options: { state: { type: 'string', default: '.reseal' }, stack: { type: 'string', default: 'ResealStack' } },
});
const state = values.state as string;

// No model call, so nothing to trace either: the tracing exporter would call the network.
setTracingDisabled(true);
const model = new ScriptedModel([
  [assistantMessage('Noted: your order number is 7.')],
  [assistantMessage('Your order number is 7.')],
]);
const agent = new Agent({ name: 'support', instructions: 'Help with orders.', model });

const session = await ResealSession.connect({
  stack: values.stack as string,
  label: 'support-bot',
  writerKeyFile: join(state, 'support-bot.pem'),
  checkpointStore: new FileCheckpointStore(join(state, 'checkpoints.json')),
});
console.log(`lineage ${await session.getSessionId()}`);

const before = (await session.getItems()).length;
const first = await run(agent, 'My order number is 7.', { session });
console.log(`turn 1: ${first.finalOutput}`);
const second = await run(agent, 'What is my order number?', { session });
console.log(`turn 2: ${second.finalOutput}`);
// The model's second input was the history read back from the lineage, every record proven.
console.log(`turn 2 model input: ${model.lastCall?.request.input.length} items from the proven history`);

const items = await session.getItems();
console.log(`sealed items: ${items.length - before} this run, ${items.length} in the history`);
const popped = await session.popItem();
console.log(`popped (a sealed tombstone, the item's record kept): ${JSON.stringify(popped)}`);
console.log(`history after pop: ${(await session.getItems()).length} items, verified`);
