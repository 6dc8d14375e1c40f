import type { McpClient } from './reseal-mcp-deps';
import { type StackPlace, stackUnavailableFrom } from './stack-unavailable';

/** Every method of {@link McpClient}: a method added there and not here fails the type check. */
const METHODS = [
  'publishWrite',
  'waitForOutcome',
  'recall',
  'recallDirect',
  'latestCheckpoint',
  'provenRecord',
  'logKey',
  'verifyLineage',
  'lineageFreshness',
  'exportLineage',
  'verifyExport',
  'readRefusals',
  'keptCheckpoint',
  'verifyStoredLineage',
  'readVerifiedLineage',
] as const satisfies readonly (keyof McpClient)[];
type Unlisted = Exclude<keyof McpClient, (typeof METHODS)[number]>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;

/**
 * An {@link McpClient} that connects on its first call, so the MCP server starts and lists its
 * tools with no stack reachable (docs/mcp.md, "Start-up and an unreachable stack"). `connect`
 * runs on a call when no client is connected (concurrent calls share one attempt); a failed
 * attempt is not kept, so the next call tries again. A call that fails because a part of the
 * stack is missing ({@link stackUnavailableFrom}: credentials expired, endpoint gone, stack
 * deleted) drops the connected client too, so the next call resolves the stack afresh.
 *
 * @throws {StackUnavailableError} from any method, naming what is missing
 */
export function lazyMcpClient(connect: () => Promise<McpClient>, place: StackPlace): McpClient {
  let connected: Promise<McpClient> | null = null;
  const current = (): Promise<McpClient> => {
    if (!connected) {
      const attempt = connect();
      connected = attempt;
      attempt.catch(() => {
        if (connected === attempt) connected = null;
      });
    }
    return connected;
  };
  const call = async (method: keyof McpClient, args: unknown[]): Promise<unknown> => {
    const attempt = current();
    try {
      const client = await attempt;
      return await (client[method] as (...a: unknown[]) => Promise<unknown>).apply(client, args);
    } catch (error) {
      const unavailable = stackUnavailableFrom(error, place);
      if (!unavailable) throw error;
      if (connected === attempt) connected = null;
      throw unavailable;
    }
  };
  return Object.fromEntries(
    METHODS.map((method) => [method, (...args: unknown[]) => call(method, args)]),
  ) as unknown as McpClient;
}
