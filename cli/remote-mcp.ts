import { BadInputError } from './errors';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * The `--remote` URL of `reseal mcp`: `https://…`, or `http://` to a loopback host only (an
 * emulator), since the SigV4 signature does not hide the messages.
 *
 * @throws {BadInputError} for anything else, naming what is wrong
 */
export function remoteMcpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadInputError(
      `mcp --remote: ${raw} is not a URL (the stack's McpUrl output, https://<api id>.execute-api.<region>.amazonaws.com/mcp)`,
    );
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && LOOPBACK.test(url.hostname)) return url;
  throw new BadInputError(`mcp --remote: ${raw}: give an https:// URL (plain http:// only to a loopback emulator)`);
}

/**
 * The region the bridge signs for: the one in an `execute-api` host name, else `AWS_REGION`, else
 * `AWS_DEFAULT_REGION`.
 *
 * @throws {BadInputError} when none of them gives one
 */
export function remoteSigningRegion(
  url: URL,
  env: Readonly<Record<string, string | undefined>>,
  fromHost: string | null,
): string {
  const region = fromHost ?? (env.AWS_REGION || undefined) ?? (env.AWS_DEFAULT_REGION || undefined);
  if (!region) {
    throw new BadInputError(
      `mcp --remote: no region to sign for: ${url.host} is not an execute-api host name; set AWS_REGION`,
    );
  }
  return region;
}

/**
 * Runs the stdio ↔ Streamable HTTP bridge of `reseal mcp --remote URL` until the host closes
 * standard input (docs/mcp.md, "Remote MCP"). The AWS SDK's signer and credential chain are
 * loaded only here, so `reseal` starts without them.
 */
export async function runRemoteBridge(url: URL, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const [{ sigV4Fetch }, { regionOfApiUrl }, { defaultProvider }, { bridgeToRemote }] = await Promise.all([
    import('../adapters/sigv4-fetch'),
    import('../adapters/region-of-api-url'),
    import('@aws-sdk/credential-provider-node'),
    import('../mcp/remote-bridge'),
  ]);
  const region = remoteSigningRegion(url, env, regionOfApiUrl(url));
  await bridgeToRemote({
    url,
    fetch: sigV4Fetch({ region, credentials: defaultProvider() }),
    input: process.stdin,
    output: process.stdout,
  });
}
