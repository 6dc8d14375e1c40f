import { readFileSync } from 'node:fs';

/** The functions, by Powertools service name, and the handler file each runs (infra/reseal-stack.ts). */
export const HANDLER_FILES = {
  'reseal-guard': 'functions/guard/handler.ts',
  'reseal-sealer': 'functions/sealer/handler.ts',
  'reseal-triage': 'functions/triage/handler.ts',
  'reseal-integrator': 'functions/integrator/handler.ts',
  'reseal-mcp': 'functions/mcp/handler.ts',
} as const;

/** A Powertools service name of {@link HANDLER_FILES}. */
export type ServiceName = keyof typeof HANDLER_FILES;

/**
 * The environment variables a handler file reads, sorted: every `requireEnv('NAME')` and
 * `process.env.NAME` in its source. Read from the source because the handlers build their
 * clients at import, so importing one in a test would need the variables it is asked about.
 */
export function environmentReadBy(handlerFile: string): string[] {
  const source = readFileSync(handlerFile, 'utf8');
  const names = new Set<string>();
  for (const match of source.matchAll(/requireEnv\(\s*'([A-Z0-9_]+)'\s*\)|process\.env\.([A-Z0-9_]+)/g)) {
    names.add((match[1] ?? match[2]) as string);
  }
  return [...names].sort();
}
