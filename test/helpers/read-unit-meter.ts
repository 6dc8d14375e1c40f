import { lastLeafOf } from '../../shared/log/last-leaf';
import type { NodeRef } from '../../shared/log/node-ref';

/** One DynamoDB call a port read stands for, with its read units. */
export interface MeteredCall {
  readonly port: string;
  readonly call: 'GetItem' | 'Query' | 'BatchGetItem';
  readonly consistent: boolean;
  /** Items the call reads (a `Query` that finds none still reads one unit's worth). */
  readonly items: number;
  /** Read units: 1 a strong item (≤ 4 KB), half that eventually consistent. */
  readonly units: number;
}

/** What a port method costs as the DynamoDB adapter makes it (test/helpers: the model the meter prices reads with). */
type Pricing = (args: readonly unknown[]) => Omit<MeteredCall, 'port' | 'units'> | null;

const get =
  (consistent: boolean): Pricing =>
  () => ({ call: 'GetItem', consistent, items: 1 });
const query: Pricing = () => ({ call: 'Query', consistent: true, items: 1 });
/** A read whose last argument may ask for an eventually consistent copy (`{ eventual: true }`). */
const eventualAsked = (args: readonly unknown[]): boolean =>
  (args.at(-1) as { eventual?: boolean } | undefined)?.eventual === true;
const marker: Pricing = (args) => ({ call: 'GetItem', consistent: !eventualAsked(args), items: 1 });
const outcomes: Pricing = (args) => ({ call: 'Query', consistent: !eventualAsked(args), items: 1 });
const batch =
  (count: (args: readonly unknown[]) => number): Pricing =>
  (args) => {
    const items = count(args);
    return items === 0 ? null : { call: 'BatchGetItem', consistent: false, items };
  };

/**
 * The DynamoDB calls of each read of the lineage table, the deployment log and the index, as the
 * adapters make them (adapters/dynamodb-chain-store.ts, dynamodb-deployment-log-store.ts,
 * dynamodb-index-node-store.ts): every item is priced at one 4 KB unit, half eventually consistent
 * (records, their nodes, tiles and leaves are read eventually consistent first; the heads, the
 * marker and the refusals strongly unless a copy is asked for). A record read is its item alone (its manifest item is metered
 * by the adapter's own tests); a node read is one record item per distinct last leaf.
 */
const PRICING: Record<string, Pricing> = {
  'store.findByResidualId': marker,
  'store.head': get(true),
  'store.logHead': get(true),
  'store.readRecord': get(false),
  'store.readNodes': batch(([, refs]) => new Set((refs as NodeRef[]).map(lastLeafOf)).size),
  'store.listRejections': outcomes,
  'store.listConflicts': outcomes,
  'store.lastRecordSeq': query,
  'deployment.readHead': get(true),
  'deployment.peekHead': get(false),
  'deployment.readLeafIndexRoot': get(false),
  'deployment.readNodes': batch(([refs]) => new Set((refs as NodeRef[]).map(lastLeafOf)).size),
  'index.getTiles': batch(([roots]) => (roots as unknown[]).length),
};

/**
 * A counting fake of the client's readers: wraps a port so each read is recorded as the DynamoDB
 * call the adapter makes for it ({@link MeteredCall}); reads the model does not price are recorded
 * under their name with no units, so a new read shows up in the totals' `unpriced`.
 */
export class ReadUnitMeter {
  readonly calls: MeteredCall[] = [];
  readonly unpriced: string[] = [];

  /** `target` with every method call metered under `${prefix}.${method}`. */
  wrap<T extends object>(target: T, prefix: string): T {
    return new Proxy(target, {
      get: (t, name, receiver) => {
        const value = Reflect.get(t, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const port = `${prefix}.${String(name)}`;
          const pricing = PRICING[port];
          if (pricing) {
            const priced = pricing(args);
            if (priced) this.calls.push({ port, ...priced, units: priced.items * (priced.consistent ? 1 : 0.5) });
          } else if (!['putTiles', 'tileLevels'].includes(String(name))) this.unpriced.push(port);
          return value.apply(t, args);
        };
      },
    });
  }

  /** Calls per DynamoDB operation and the read units in all, since the last {@link reset}. */
  totals(): { GetItem: number; Query: number; BatchGetItem: number; units: number } {
    const count = (call: MeteredCall['call']) => this.calls.filter((c) => c.call === call).length;
    return {
      GetItem: count('GetItem'),
      Query: count('Query'),
      BatchGetItem: count('BatchGetItem'),
      units: this.calls.reduce((sum, c) => sum + c.units, 0),
    };
  }

  reset(): void {
    this.calls.length = 0;
    this.unpriced.length = 0;
  }
}
