/**
 * The candidate layouts of an append (docs/sealing.md, "The append's layout"), each built from the
 * items today's append writes: the record item, head item and residual-id marker that
 * `DynamoDBChainStore` puts in its one transaction (adapters/record-item.ts, `recordItem`,
 * `headItem`, `markerItem`), so every size is the real encoders' output with attributes moved or
 * left out, never a guessed size. bench/write-capacity.ts writes each plan to a table of its own
 * and prints the capacity the emulator reports.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** A DynamoDB item as the SDK takes it. */
export type Item = Record<string, AttributeValue>;

/** One write of a plan: a conditional `PutItem`, or one `TransactWriteItems` of conditional puts. */
export type AppendStep =
  | { readonly kind: 'put'; readonly item: Item }
  | { readonly kind: 'transact'; readonly items: readonly Item[] };

/** A layout's writes for one append, in the order the sealer would make them. */
export interface AppendPlan {
  /** Short name, as docs/sealing.md names the layout. */
  readonly layout: string;
  readonly steps: readonly AppendStep[];
}

/** The three items of today's append, as captured from the sealer's transaction. */
export interface TodayItems {
  readonly record: Item;
  readonly head: Item;
  readonly marker: Item;
}

/** `item` without the named attributes. */
function without(item: Item, names: readonly string[]): Item {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !names.includes(name)));
}

/**
 * The head-state attributes of a head item that a head without the tip's header copy keeps:
 * the keys, the condition's fields (`seq`, `recordHash`, `generationEpoch`), the head-state MAC,
 * the frontier and the policy in force. The tip record's own `mac`, `keyId`, `residualId` and
 * `header` are in the record item; the signed lineage checkpoint is gone once the sealer signs none.
 */
export const SMALL_HEAD_DROPS = ['header', 'mac', 'keyId', 'residualId', 'checkpoint'] as const;

/**
 * Splits the sealer's captured `TransactWriteItems` input into today's record, head and marker items
 * (one record per write: the bench seals runs of one).
 */
export function todayItemsOf(input: Record<string, unknown>): TodayItems | null {
  const puts = ((input.TransactItems as { Put?: { Item: Item } }[] | undefined) ?? []).flatMap((action) =>
    action.Put ? [action.Put.Item] : [],
  );
  const sk = (item: Item) => item.sk?.S ?? '';
  const record = puts.find((item) => sk(item).startsWith('RECORD#'));
  const head = puts.find((item) => sk(item) === 'HEAD');
  const marker = puts.find((item) => sk(item).startsWith('RESIDUAL#'));
  return record && head && marker ? { record, head, marker } : null;
}

/**
 * The plans compared, from today's items:
 * - today, and today with the head carrying no signed lineage checkpoint (one transaction);
 * - (a) the head state in the newest record item (no head item), the marker apart;
 * - (b) the record first, then the head (no tip header copy) and the marker, three puts;
 * - (c) one transaction of the record and a head without the tip header copy, the marker apart.
 */
export function appendPlans({ record, head, marker }: TodayItems): AppendPlan[] {
  const unsignedHead = without(head, ['checkpoint']);
  const smallHead = without(head, SMALL_HEAD_DROPS);
  // (a): the record item carries what authenticates the state it ends: the head-state MAC, the
  // frontier and the policy in force (its seq, hash, epoch and header are the record's own).
  const { headMac, frontier, policy } = head;
  const recordWithHead: Item = {
    ...record,
    ...(headMac ? { headMac } : {}),
    ...(frontier ? { frontier } : {}),
    ...(policy ? { policy } : {}),
  };
  return [
    { layout: 'today (signed checkpoint)', steps: [{ kind: 'transact', items: [record, head, marker] }] },
    { layout: 'today, no signed checkpoint', steps: [{ kind: 'transact', items: [record, unsignedHead, marker] }] },
    {
      layout: '(a) head in the record item',
      steps: [
        { kind: 'put', item: marker },
        { kind: 'put', item: recordWithHead },
      ],
    },
    {
      layout: '(b) record, then head',
      steps: [
        { kind: 'put', item: record },
        { kind: 'put', item: smallHead },
        { kind: 'put', item: marker },
      ],
    },
    {
      layout: '(c) record and head, marker apart',
      steps: [
        { kind: 'transact', items: [record, smallHead] },
        { kind: 'put', item: marker },
      ],
    },
  ];
}
