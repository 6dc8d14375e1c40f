import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';

/** Credentials as the SDK's signer takes them: fixed ones, or a provider such as `defaultProvider()`. */
export type SigV4Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

/** The `fetch` shape the MCP SDK's HTTP transports take. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Options of {@link sigV4Fetch}. */
export interface SigV4FetchOptions {
  /** Region of the signature (the API's region). */
  readonly region: string;
  /** The caller's credentials: the SDK's default chain (`defaultProvider()`), or fixed ones in tests. */
  readonly credentials: SigV4Credentials;
  /** Service of the signature. @default 'execute-api' (API Gateway) */
  readonly service?: string;
  /** The fetch that sends the signed request. @default globalThis.fetch */
  readonly fetch?: FetchLike;
}

/**
 * A `fetch` that signs every request with AWS Signature Version 4 (the SDK's own signer,
 * `@smithy/signature-v4` with SHA-256 from `@smithy/core`) before sending it: method, path,
 * query, headers and body are signed, so API Gateway's `AWS_IAM` authorization can name the
 * caller (docs/mcp.md, "Remote MCP"). Credentials are resolved per request, so refreshed
 * session credentials are used as the chain refreshes them.
 */
export function sigV4Fetch(options: SigV4FetchOptions): FetchLike {
  const signer = new SignatureV4({
    service: options.service ?? 'execute-api',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
  });
  const send = options.fetch ?? ((url, init) => fetch(url, init));
  return async (url, init) => {
    const request = new Request(url, init);
    const target = new URL(request.url);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    const headers: Record<string, string> = { host: target.host };
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const query: Record<string, string | string[]> = {};
    for (const name of new Set(target.searchParams.keys())) {
      const values = target.searchParams.getAll(name);
      query[name] = values.length === 1 ? (values[0] as string) : values;
    }
    const signed = await signer.sign({
      method: request.method,
      protocol: target.protocol,
      hostname: target.hostname,
      ...(target.port ? { port: Number(target.port) } : {}),
      path: target.pathname,
      query,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    // fetch sets Host from the URL itself, to the value signed above.
    const { host: _host, ...sent } = signed.headers;
    return send(target, {
      method: request.method,
      headers: sent,
      ...(body === undefined ? {} : { body }),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
  };
}
