import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMITTED_GUARANTEES, FAILED_RUN_MARKER, GENERATED_GUARANTEES } from './guarantees-paths';

/**
 * `npm run guarantees:update`: copies the table the last complete `npm test` run wrote
 * ({@link GENERATED_GUARANTEES}) onto {@link COMMITTED_GUARANTEES}. Refuses when there is none (a
 * partial run writes none), when the run that wrote it failed (a file whose setup threw recorded no
 * rows: {@link FAILED_RUN_MARKER}) or when a row failed, so the committed table only ever shows
 * the passes of a passing run.
 *
 * @returns the process exit code: 0 copied, 1 refused
 */
export function updateGuarantees(root: string, log: (line: string) => void = console.log): number {
  const generated = join(root, GENERATED_GUARANTEES);
  if (!existsSync(generated)) {
    log(`guarantees:update: no ${GENERATED_GUARANTEES}; run \`npm test\` first (only a complete run writes it)`);
    return 1;
  }
  if (existsSync(join(root, FAILED_RUN_MARKER))) {
    log(
      `guarantees:update: the run that wrote ${GENERATED_GUARANTEES} failed (${readFileSync(join(root, FAILED_RUN_MARKER), 'utf8').trim()}); its table may miss rows: fix the run first`,
    );
    return 1;
  }
  const table = readFileSync(generated, 'utf8');
  const failing = /^\d+ rows, (\d+) failing\.$/m.exec(table)?.[1];
  if (failing === undefined) {
    log(`guarantees:update: ${GENERATED_GUARANTEES} has no "N rows, M failing." line; not a guarantees table`);
    return 1;
  }
  if (failing !== '0') {
    log(`guarantees:update: ${failing} row(s) of ${GENERATED_GUARANTEES} failed; fix them before updating`);
    return 1;
  }
  copyFileSync(generated, join(root, COMMITTED_GUARANTEES));
  log(`guarantees:update: ${GENERATED_GUARANTEES} copied onto ${COMMITTED_GUARANTEES}`);
  return 0;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = updateGuarantees(process.cwd());
}
