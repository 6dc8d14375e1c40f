import { randomUUID } from 'node:crypto';
import type { AgentInputItem } from '@openai/agents-core';
import { describe, expect, inject, it } from 'vitest';
import { LineageKeys } from '../../adapters/lineage-keys';
import { connectToStack } from '../../client/connect';
import { LogVerificationError } from '../../client/errors';
import { MemoryCheckpointStore } from '../../client/memory-checkpoint-store';
import { clientOutputsFrom } from '../../client/stack-outputs';
import { SessionWriteRefusedError } from '../../frameworks/openai-agents/errors';
import { ResealSession, type ResealSessionConnectOptions } from '../../frameworks/openai-agents/reseal-session';
import { LocalWriterSigner } from '../../shared/authorship/local-writer-signer';
import type { WriterSigner } from '../../shared/ports/writer-signer';
import { SealedRecordSchema } from '../../shared/seal/sealed-record';
import { SESSION_ITEM_FORMAT } from '../../shared/session/session-history';
import { deployedStack } from '../helpers/deployed-stack';
import { expectGuarantee, type Guarantee } from '../helpers/guarantees';
import { partitionsOf, TableWriter, withJson } from '../helpers/tamper-table';

// The OpenAI Agents SDK session adapter on the deployed stack (docs/frameworks.md, "OpenAI Agents
// SDK (TypeScript)"): each test names the Reseal check it depends on; without that check the
// session would return the edited history, append the stale item, or lose the popped one.
const { stack, dynamodb, store } = deployedStack();
const endpoint = inject('endpoint');
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const stackOptions = { outputs: clientOutputsFrom({ ...stack }), endpoint, region: 'us-east-1', credentials };
const table = new TableWriter(dynamodb, stack.TableName);

const bind = (options: Partial<ResealSessionConnectOptions> & { writer: WriterSigner }) =>
  ResealSession.connect({
    stack: stackOptions,
    checkpointStore: new MemoryCheckpointStore(),
    timeoutMs: 90_000,
    ...options,
  });

const fresh = () => {
  const writer = LocalWriterSigner.generate('agent').signer;
  return { writer, label: `oa-${randomUUID().slice(0, 8)}` };
};

const user = (text: string): AgentInputItem => ({ type: 'message', role: 'user', content: text });
const assistant = (text: string): AgentInputItem => ({
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text }],
});

const row = (attack: string, expected: string, target = 'record'): Guarantee => ({
  section: 'tampering',
  target,
  attack,
  reader: 'openai-agents ResealSession.getItems',
  checkpoint: true,
  expected,
});

/** What a call threw, as a short outcome: the verdict of a `LogVerificationError`, else `returned`. */
const outcomeOf = async (read: () => Promise<unknown>): Promise<string> => {
  try {
    await read();
    return 'returned';
  } catch (error) {
    if (error instanceof LogVerificationError) return error.verdict;
    throw error;
  }
};

describe('OpenAI Agents SDK session on the deployed stack', () => {
  // Both attack tests below also depend on the session's own gate (`ResealSession.history`: a walk
  // that is not VERIFIED_INTACT, or has no tree head to tie it to, throws): with the whole gate
  // removed, getItems returns the edited or rolled-back history. Its verdict half alone decides
  // nothing here: every walk a table writer makes fail also leaves no tree head (`log: null`,
  // shared/log/walk-against-log.ts); only genuine records sealed past the indexed tree head (awaiting
  // integration) reach it.
  it('check "every walked record hashes to its header (record integrity: payloadHash)": a table-writer edit of a stored item makes getItems throw HASH_MISMATCH', async (context) => {
    const { writer, label } = fresh();
    const session = await bind({ writer, label });
    const lineageId = await session.getSessionId();
    await session.addItems([user('my order number is 7'), assistant('noted: order 7')]);
    expect(await session.getItems()).toEqual([user('my order number is 7'), assistant('noted: order 7')]);
    expect(await session.getItems(1)).toEqual([assistant('noted: order 7')]);

    const pk = LineageKeys.lineage(lineageId);
    const before = await table.snapshot(partitionsOf(lineageId));
    await table.update(pk, LineageKeys.record(1), (item) =>
      withJson(item, 'record', (r) => ({
        ...r,
        payload: { format: SESSION_ITEM_FORMAT, op: 'add', item: assistant('noted: order 8') },
      })),
    );
    expectGuarantee(
      context,
      row('edit the item a session record holds', 'HASH_MISMATCH'),
      await outcomeOf(() => session.getItems()),
    );
    await table.restore(before);
    expect(await session.getItems()).toEqual([user('my order number is 7'), assistant('noted: order 7')]);
  });

  it('check "the walk is tied to the tree head the index holds (NOT_NEWEST)": a rollback of the lineage to before its last item makes getItems throw', async (context) => {
    const { writer, label } = fresh();
    const session = await bind({ writer, label });
    const lineageId = await session.getSessionId();
    await session.addItems([user('my order number is 7'), assistant('noted: order 7')]);
    const before = await table.snapshot(partitionsOf(lineageId));
    // A rollback: the table writer puts back the lineage as it was before the last item.
    await session.addItems([user('cancel it')]);
    expect(await session.getItems()).toHaveLength(3);
    await table.restore(before);
    let reason = '';
    const rolledBack = await outcomeOf(() =>
      session.getItems().catch((error: unknown) => {
        if (error instanceof LogVerificationError) reason = error.message;
        throw error;
      }),
    );
    expectGuarantee(
      context,
      // No signed lineage checkpoint to keep (docs/deployment-log.md, "What changes for the sealer",
      // step 3): the index's larger tree head refuses the rolled-back one (NOT_NEWEST).
      row('roll the lineage back to before its last session item', 'UNVERIFIED_TAMPER_RISK', 'lineage'),
      rolledBack,
    );
    expect(reason).toMatch(/NOT_NEWEST/);
  });

  it('check "the sealer fences stale epochs (a signed STALE_EPOCH conflict)": an append from a generation a newer one has taken over from is refused, and nothing is appended', async (context) => {
    const { writer, label } = fresh();
    const first = await bind({ writer, label, sessionId: 's-1', generationEpoch: 1 });
    const lineageId = await first.getSessionId();
    await first.addItems([user('hello')]);
    const second = await bind({
      writer,
      lineageId,
      sessionId: 's-2',
      generationEpoch: 2,
      predecessor: { sessionId: 's-1', epoch: 1 },
    });
    await second.addItems([user('resumed')]);

    const stale = await first.addItems([user('from the old generation')]).then(
      () => null,
      (error: unknown) => error,
    );
    expect(stale).toBeInstanceOf(SessionWriteRefusedError);
    const refused = stale as SessionWriteRefusedError;
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'session write',
        attack: 'append from a generation a newer one took over from (epoch 1 after epoch 2)',
        reader: 'openai-agents ResealSession.addItems',
        expected: 'SessionWriteRefusedError SEALER STALE_EPOCH',
      },
      `${refused.name} ${refused.stage} ${refused.reason}`,
    );
    expect(refused.outcome.kind).toBe('CONFLICT');
    expect(await second.getItems()).toEqual([user('hello'), user('resumed')]);
    expect(await store.lastRecordSeq(lineageId)).toBe(1);
  });

  it('check "a removal is a sealed record that supersedes what it removes (popItem seals a tombstone naming the popped record)": popItem and clearSession seal records, the popped item stays provable, and the history still verifies', async () => {
    const { writer, label } = fresh();
    const checkpointStore = new MemoryCheckpointStore();
    const session = await bind({ writer, label, checkpointStore });
    const lineageId = await session.getSessionId();
    await session.addItems([user('a'), assistant('b'), user('c')]);

    expect(await session.popItem()).toEqual(user('c'));
    expect(await session.getItems()).toEqual([user('a'), assistant('b')]);

    const { client } = await connectToStack({ ...stackOptions, checkpointStore });
    const recordAt = async (seq: number) =>
      SealedRecordSchema.parse((await client.provenRecord(lineageId, seq)).record);
    const tombstone = await recordAt(3);
    const popped = await recordAt(2);
    expect(tombstone.header.supersedes).toEqual({ seq: 2, recordHash: popped.recordHash });
    expect(tombstone.payload).toEqual({ format: SESSION_ITEM_FORMAT, op: 'pop' });
    expect(popped.payload).toEqual({ format: SESSION_ITEM_FORMAT, op: 'add', item: user('c') });

    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await session.popItem()).toBeUndefined();
    await session.addItems([user('after the clear')]);
    expect(await session.getItems()).toEqual([user('after the clear')]);

    const clear = await recordAt(4);
    expect(clear.header.supersedes).toEqual({ seq: 3, recordHash: tombstone.recordHash });
    const verified = await client.verifyStoredLineage(lineageId);
    expect(verified.verification.verdict).toBe('VERIFIED_INTACT');
    expect(verified.log?.size).toBe(6);
  });
});
