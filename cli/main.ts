import { pathToFileURL } from 'node:url';
import { processIo } from './io';
import { run } from './run';

/** Entry point when run as a script (`bin/reseal.mjs` imports this module and calls it). */
export async function main(): Promise<void> {
  process.exitCode = await run(process.argv.slice(2), processIo());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
