/** Reads a required environment variable, or throws at cold start. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is required`);
  return value;
}
