/**
 * Counts every call an AWS SDK v3 client makes, through the client's middleware stack (the SDK's
 * documented extension point: `client.middlewareStack.add(middleware, { step, name })`, AWS SDK
 * for JavaScript v3 Developer Guide, "Logging AWS SDK for JavaScript calls", "Using middleware").
 */
import { CAPACITY_OPERATIONS, type CallTally, capacityOf, itemReadUnits, serviceOf } from './call-tally';

/** The part of an SDK client this module uses (every `@aws-sdk/client-*` client has it). */
export interface MiddlewareClient {
  // Each client types its stack by its own commands; only `add` is used, as below.
  readonly middlewareStack: { readonly add: unknown };
}

/** `middlewareStack.add` as this module calls it. */
type AddMiddleware = (
  middleware: (next: Handler, context: HandlerContext) => Handler,
  options: { step: 'initialize' | 'deserialize'; name: string; priority?: 'high'; override?: boolean },
) => void;

interface HandlerContext {
  readonly clientName?: string;
  readonly commandName?: string;
}
type Handler = (args: { input: Record<string, unknown>; request?: unknown }) => Promise<{
  output?: Record<string, unknown>;
  response?: unknown;
}>;

/** `DynamoDBClient` → `DynamoDB`, `GenerateMacCommand` → `GenerateMac`. */
function names(context: HandlerContext): { service: string; operation: string } {
  return {
    service: (context.clientName ?? 'Unknown').replace(/Client$/, ''),
    operation: (context.commandName ?? 'Unknown').replace(/Command$/, ''),
  };
}

function bodyBytes(body: unknown): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return 0;
}

function contentLength(message: unknown): number {
  const headers = (message as { headers?: Record<string, string> } | undefined)?.headers ?? {};
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-length')?.[1];
  const length = Number(value);
  return Number.isFinite(length) ? length : 0;
}

/** Whether a `BatchGetItem` input asks for strongly consistent reads (any of its tables does). */
function batchConsistent(input: Record<string, unknown>): boolean {
  const tables = input.RequestItems;
  if (typeof tables !== 'object' || tables === null) return true;
  return Object.values(tables as Record<string, { ConsistentRead?: boolean }>).some((t) => t?.ConsistentRead === true);
}

/**
 * Adds two middlewares to `client`: one (step `initialize`) that asks DynamoDB for
 * `ReturnConsumedCapacity: TOTAL` when the caller did not ask for capacity, so the capacity the
 * service reports is counted; one (step `deserialize`, around the SDK's deserializer, so once per
 * HTTP attempt, retries included) that records the operation, the request body's bytes, the
 * response's `Content-Length` and the `ConsumedCapacity` in `tally`. A failed attempt is counted
 * too: AWS bills it.
 *
 * @returns `client`, for chaining at construction
 */
export function countCalls<C extends MiddlewareClient>(client: C, tally: CallTally): C {
  const stack = client.middlewareStack as { add: AddMiddleware };
  stack.add(
    (next: Handler, context: HandlerContext) => async (args: Parameters<Handler>[0]) => {
      const { service, operation } = names(context);
      if (
        service === 'DynamoDB' &&
        CAPACITY_OPERATIONS.has(operation) &&
        args.input.ReturnConsumedCapacity === undefined
      ) {
        return next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
      }
      return next(args);
    },
    { step: 'initialize', name: 'resealBenchConsumedCapacity', override: true },
  );
  stack.add(
    (next: Handler, context: HandlerContext) => async (args: Parameters<Handler>[0]) => {
      const { operation } = names(context);
      const service = serviceOf(names(context).service, args.input.QueueUrl);
      const entries = Array.isArray(args.input.Entries) ? args.input.Entries.length : 1;
      const requestBytes = bodyBytes((args.request as { body?: unknown } | undefined)?.body);
      try {
        const result = await next(args);
        const consumedCapacity = result.output?.ConsumedCapacity;
        tally.record({
          service,
          operation,
          requestBytes,
          responseBytes: contentLength(result.response),
          consumedCapacity,
          entries,
          // The emulator reports no capacity for BatchGetItem: its items are priced by their size instead.
          ...(operation === 'BatchGetItem' && capacityOf(operation, consumedCapacity).readUnits === 0
            ? { estimatedReadUnits: itemReadUnits(result.output?.Responses, batchConsistent(args.input)) }
            : {}),
        });
        return result;
      } catch (error) {
        tally.record({
          service,
          operation,
          requestBytes,
          responseBytes: contentLength((error as { $response?: unknown }).$response),
          entries,
        });
        throw error;
      }
    },
    { step: 'deserialize', name: 'resealBenchCallCounter', priority: 'high', override: true },
  );
  return client;
}
