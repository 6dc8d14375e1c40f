/** Host names of this machine's loopback interface (127.0.0.0/8 is matched apart). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Checks a user-supplied endpoint: only loopback hosts (127.0.0.0/8, localhost, ::1) are a
 * target here, unless `RESEAL_ALLOW_REMOTE_ENDPOINT=1` says the user means a remote one.
 * @throws {Error} for a malformed URL or a non-loopback host without the opt-in
 */
export function checkEndpoint(endpoint: string, env: NodeJS.ProcessEnv = process.env): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch (error) {
    throw new Error(`AWS_ENDPOINT_URL=${endpoint} is not a URL`, { cause: error });
  }
  const host = url.hostname.toLowerCase();
  const loopback = LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
  if (!loopback && env.RESEAL_ALLOW_REMOTE_ENDPOINT !== '1') {
    throw new Error(
      `AWS_ENDPOINT_URL=${endpoint} is not a loopback address; the tests create and delete resources there. ` +
        'Set RESEAL_ALLOW_REMOTE_ENDPOINT=1 if you really mean it.',
    );
  }
  return endpoint.replace(/\/+$/, '');
}
