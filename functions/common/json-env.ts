/**
 * The JSON value of an environment variable the stack writes (e.g. `TENANT_QUEUES`, `TENANTS`), or
 * `undefined` when it is unset or empty. Text that is not JSON is passed on as the string itself,
 * so the caller's schema refuses it with an error that names the variable, rather than a bare
 * `SyntaxError` at cold start.
 */
export function jsonEnv(value: string | undefined): unknown {
  if (value === undefined || value === '') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
