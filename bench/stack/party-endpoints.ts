/**
 * How the emulator bench tells the functions' calls apart (docs/infrastructure.md, "Cost and
 * quotas"): each function is deployed with its own `AWS_ENDPOINT_URL`, the functions' counting
 * proxy with a path of its own (`<proxy>/_party/<function>`, the stack's `endpointOverrides`). The
 * SDK keeps an endpoint's path in front of each request's, and an SQS call whose queue URL has the
 * endpoint's origin keeps it too (the queue URLs name the proxy's address), so every call of a
 * function arrives under its path; the proxy strips it before it forwards the call.
 */

/** The path segment in front of a function's name. */
const PREFIX = '/_party/';

/** The functions whose calls the bench counts apart: Powertools service name → party name. */
export const FUNCTION_PARTIES: Readonly<Record<string, string>> = {
  'reseal-guard': 'guard',
  'reseal-sealer': 'sealer',
  'reseal-integrator': 'integrator',
  'reseal-triage': 'triage',
  'reseal-mcp': 'mcp',
};

/** The party of a call that came without a function's path (a function the bench did not name). */
export const UNATTRIBUTED_PARTY = 'functions, unattributed';

/**
 * The stack's `endpointOverrides` for a proxy at `proxyEndpoint` (`http://host:port`): each
 * function of {@link FUNCTION_PARTIES} under its own path.
 */
export function partyEndpoints(proxyEndpoint: string): Record<string, string> {
  const base = proxyEndpoint.replace(/\/+$/, '');
  return Object.fromEntries(
    Object.entries(FUNCTION_PARTIES).map(([service, party]) => [service, `${base}${PREFIX}${party}`]),
  );
}

/**
 * The party a request path names and the path to forward without it: `/_party/guard/` →
 * `guard`, `/`; a path without one is left as it is, its party `undefined`.
 */
export function partyOfPath(path: string): { party: string | undefined; path: string } {
  if (!path.startsWith(PREFIX)) return { party: undefined, path };
  const rest = path.slice(PREFIX.length);
  const end = rest.search(/[/?]/);
  const party = end < 0 ? rest : rest.slice(0, end);
  if (party === '') return { party: undefined, path };
  const forwarded = end < 0 ? '/' : rest.slice(end);
  return { party: decodeURIComponent(party), path: forwarded.startsWith('?') ? `/${forwarded}` : forwarded };
}
