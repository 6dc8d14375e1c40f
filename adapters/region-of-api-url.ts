/**
 * The region of an API Gateway URL (`<id>.execute-api.<region>.amazonaws.com[.cn]`), or `null`
 * for any other host (a custom domain, an emulator).
 */
export function regionOfApiUrl(url: URL): string | null {
  const match = /^[a-z0-9]+\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(url.hostname);
  return match?.[1] ?? null;
}
