/**
 * A counting HTTP proxy in front of the emulator, for the calls the bench's own SDK clients do not
 * make: the Lambda functions' (they run inside the emulator, each with `AWS_ENDPOINT_URL` set to
 * the proxy by the deploy's `endpointOverride`) and the CLI's (run in-process with its endpoint
 * set to a proxy of its own).
 *
 * It names each call from the request as AWS protocols do (`X-Amz-Target` for the JSON protocols
 * of DynamoDB, KMS, SQS, EventBridge and CloudWatch Logs; `Action=` for query protocols; the
 * SigV4 credential scope for the service), asks DynamoDB for `ReturnConsumedCapacity: TOTAL` where
 * the caller did not (the emulator does not check signatures unless it runs with `AUTH=true`, so
 * the added member is accepted), and reads the `ConsumedCapacity` it reports. A request under a
 * function's path (`/_party/<function>/…`, bench/stack/party-endpoints.ts) is counted for that
 * function too, and forwarded without the path.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { CAPACITY_OPERATIONS, CallTally, serviceOf } from './call-tally';
import { partyOfPath, UNATTRIBUTED_PARTY } from './party-endpoints';

/** SigV4 signing names → the names the SDK middleware uses (its clients' names). */
const SERVICE_NAMES: Readonly<Record<string, string>> = {
  dynamodb: 'DynamoDB',
  kms: 'KMS',
  sqs: 'SQS',
  events: 'EventBridge',
  logs: 'CloudWatchLogs',
  monitoring: 'CloudWatch',
  cloudformation: 'CloudFormation',
  lambda: 'Lambda',
  sts: 'STS',
};

/** `X-Amz-Target` prefixes → service names, for requests without a credential scope. */
const TARGET_PREFIXES: Readonly<Record<string, string>> = {
  DynamoDB_20120810: 'DynamoDB',
  TrentService: 'KMS',
  AmazonSQS: 'SQS',
  AWSEvents: 'EventBridge',
  Logs_20140328: 'CloudWatchLogs',
};

/** Service and operation of a request, as its protocol names them. */
export function callName(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: string,
  path: string,
): { service: string; operation: string } {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const scope = /Credential=[^/]*\/[^/]*\/[^/]*\/([^/]+)\/aws4_request/.exec(header('authorization') ?? '')?.[1];
  const target = header('x-amz-target');
  const [prefix, targetOperation] = target?.includes('.') ? target.split('.', 2) : [undefined, undefined];
  const service =
    (scope ? (SERVICE_NAMES[scope] ?? scope) : undefined) ??
    (prefix ? TARGET_PREFIXES[prefix] : undefined) ??
    'Unknown';
  const action = /(?:^|&)Action=([A-Za-z0-9]+)/.exec(body)?.[1] ?? /[?&]Action=([A-Za-z0-9]+)/.exec(path)?.[1];
  return { service, operation: targetOperation ?? action ?? `${path.split('?')[0]}` };
}

/** A running proxy. */
export interface CountingProxy {
  /** `http://host:port` to give SDK clients as their endpoint. */
  readonly endpoint: string;
  /** The calls that went through it. */
  readonly tally: CallTally;
  /**
   * The same calls by the function whose path they came under (`guard`, `sealer`, …; a party
   * appears with its first call), those under none as {@link UNATTRIBUTED_PARTY}.
   */
  readonly byParty: ReadonlyMap<string, CallTally>;
  /** Stops listening (idempotent). */
  close(): Promise<void>;
}

/** Options of {@link startCountingProxy}. */
export interface CountingProxyOptions {
  /** The emulator, e.g. `http://127.0.0.1:45123`. */
  readonly target: string;
  /** Loopback address to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** Port to listen on. @default a free one */
  readonly port?: number;
  /** Sees each request's service, operation and body before it is forwarded (e.g. to tell KMS keys apart). @default none */
  readonly observe?: (service: string, operation: string, body: Buffer) => void;
  /**
   * Told each call's service, operation and round trip through the emulator, milliseconds (from
   * the request's last byte to the response's), e.g. to find where a function's time goes. @default none
   */
  readonly timed?: (service: string, operation: string, ms: number) => void;
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

/** The body to forward: DynamoDB requests gain `ReturnConsumedCapacity: TOTAL` unless they set it. */
function withCapacity(service: string, operation: string, body: Buffer): Buffer {
  if (service !== 'DynamoDB' || !CAPACITY_OPERATIONS.has(operation)) return body;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    if (parsed.ReturnConsumedCapacity !== undefined) return body;
    return Buffer.from(JSON.stringify({ ...parsed, ReturnConsumedCapacity: 'TOTAL' }));
  } catch {
    return body;
  }
}

/** The queue URL and the number of batch entries a JSON-protocol request names. */
function requestFields(body: Buffer): { queueUrl?: unknown; entries: number } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { QueueUrl?: unknown; Entries?: unknown };
    return { queueUrl: parsed.QueueUrl, entries: Array.isArray(parsed.Entries) ? parsed.Entries.length : 1 };
  } catch {
    const queueUrl = /(?:^|&)QueueUrl=([^&]*)/.exec(body.toString('utf8'))?.[1];
    return { queueUrl: queueUrl ? decodeURIComponent(queueUrl) : undefined, entries: 1 };
  }
}

function consumedCapacity(service: string, body: Buffer): unknown {
  if (service !== 'DynamoDB') return undefined;
  try {
    return (JSON.parse(body.toString('utf8')) as { ConsumedCapacity?: unknown }).ConsumedCapacity;
  } catch {
    return undefined;
  }
}

/**
 * Starts a proxy that forwards every request to `options.target` unchanged (but for the DynamoDB
 * capacity request above) and records each in its {@link CallTally}.
 *
 * @throws {Error} when it cannot listen on the address
 */
export async function startCountingProxy(options: CountingProxyOptions): Promise<CountingProxy> {
  const target = new URL(options.target);
  const tally = new CallTally();
  const byParty = new Map<string, CallTally>();
  const partyTally = (party: string): CallTally => {
    let found = byParty.get(party);
    if (!found) {
      found = new CallTally();
      byParty.set(party, found);
    }
    return found;
  };

  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const body = await readAll(incoming);
    const { party, path } = partyOfPath(incoming.url ?? '/');
    const named = callName(incoming.headers, body.toString('utf8'), path);
    const { operation } = named;
    const { queueUrl, entries } = requestFields(body);
    const service = serviceOf(named.service, queueUrl);
    options.observe?.(service, operation, body);
    const forwarded = withCapacity(service, operation, body);
    const headers = { ...incoming.headers, host: target.host, 'content-length': String(forwarded.length) };
    const sentAt = performance.now();
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path, headers },
      async (response) => {
        const answer = await readAll(response);
        options.timed?.(service, operation, performance.now() - sentAt);
        const sample = {
          service,
          operation,
          requestBytes: body.length,
          responseBytes: answer.length,
          consumedCapacity: consumedCapacity(service, answer),
          entries,
        };
        tally.record(sample);
        partyTally(party ?? UNATTRIBUTED_PARTY).record(sample);
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        outgoing.end(answer);
      },
    );
    upstream.once('error', (error) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`counting proxy: ${error.message}`);
    });
    upstream.end(forwarded);
  };

  const server: Server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`counting proxy: ${(error as Error).message}`);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    endpoint: `http://${host}:${port}`,
    tally,
    byParty,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
