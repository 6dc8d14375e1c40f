import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import { DEFAULT_FUZZ_RUNS, fuzzRuns } from '../helpers/fuzz-runs';
import { COMMITTED_GUARANTEES, FAILED_RUN_MARKER, GENERATED_GUARANTEES, UPDATE_COMMAND } from './guarantees-paths';
import { type GuaranteeRow, renderGuarantees } from './render-guarantees';

/** The projects a complete run has (vitest.config.ts). */
const PROJECTS = ['unit', 'infra', 'integration'] as const;

/** Most differing lines of the two tables printed when they differ. */
const SHOWN_DIFFERENCES = 10;

/**
 * The guarantees table of a complete run (README.md, "Tests"): every project ran, every test file
 * of each ran, no name filter was given, and the fuzzing ran its default count (`npm test`). It is
 * written to {@link GENERATED_GUARANTEES}, never to a tracked file, and compared with the committed
 * {@link COMMITTED_GUARANTEES}: when the two differ the run fails (exit code 1), naming
 * {@link UPDATE_COMMAND}. A filtered, partial or interrupted run writes and compares nothing, and
 * removes a table an earlier run left, so the update command never copies a stale one.
 */
export default class GuaranteesReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
    rmSync(join(vitest.config.root, GENERATED_GUARANTEES), { force: true });
    rmSync(join(vitest.config.root, FAILED_RUN_MARKER), { force: true });
  }

  async onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    errors: ReadonlyArray<unknown>,
    reason: TestRunEndReason,
  ): Promise<void> {
    const vitest = this.#vitest;
    if (!vitest || reason === 'interrupted') return;
    const why = await this.#incomplete(vitest, modules);
    if (why) {
      vitest.logger.log(`guarantees: no table written (${why}); only a complete \`npm test\` run writes one`);
      return;
    }
    const root = vitest.config.root;
    const rows: GuaranteeRow[] = [];
    for (const module of modules) {
      const file = relative(root, module.moduleId).split(sep).join('/');
      for (const test of module.children.allTests()) {
        const result = test.result();
        const testError = result.state === 'failed' ? (result.errors?.[0]?.message ?? 'failed') : undefined;
        for (const guarantee of test.meta().guarantees ?? []) {
          rows.push({ ...guarantee, test: test.fullName, file, ...(testError === undefined ? {} : { testError }) });
        }
      }
    }
    const table = renderGuarantees(rows);
    const generated = join(root, GENERATED_GUARANTEES);
    mkdirSync(dirname(generated), { recursive: true });
    writeFileSync(generated, table);
    vitest.logger.log(`guarantees: ${rows.length} rows written to ${GENERATED_GUARANTEES}`);
    const failedFiles = modules.filter((module) => module.state() === 'failed').length;
    if (failedFiles > 0 || errors.length > 0 || reason === 'failed') {
      writeFileSync(
        join(root, FAILED_RUN_MARKER),
        `${failedFiles} test file(s) failed, ${errors.length} run error(s)\n`,
      );
    }

    const committed = readCommitted(join(root, COMMITTED_GUARANTEES));
    if (committed === table) {
      vitest.logger.log(`guarantees: ${COMMITTED_GUARANTEES} is up to date`);
      return;
    }
    process.exitCode = 1;
    vitest.logger.error(
      [
        `guarantees: ${COMMITTED_GUARANTEES} differs from the table this run observed (${GENERATED_GUARANTEES}).`,
        ...differences(committed ?? '', table),
        `If the change is intended (and every row passes), run \`${UPDATE_COMMAND}\` and commit ${COMMITTED_GUARANTEES}.`,
      ].join('\n'),
    );
  }

  /** Why this run is not complete, or null when it is. */
  async #incomplete(vitest: Vitest, modules: ReadonlyArray<TestModule>): Promise<string | null> {
    if (vitest.config.testNamePattern) return 'a test name filter was given';
    const runs = fuzzRuns();
    if (runs !== DEFAULT_FUZZ_RUNS) return `FUZZ_RUNS=${runs} is not the default ${DEFAULT_FUZZ_RUNS}`;
    const names = new Set(vitest.projects.map((project) => project.name));
    const missing = PROJECTS.filter((name) => !names.has(name));
    if (missing.length > 0) return `project(s) ${missing.join(', ')} did not run`;
    const ran = new Set(modules.filter((m) => m.state() !== 'skipped').map((m) => `${m.project.name}:${m.moduleId}`));
    const all = await vitest.globTestSpecifications();
    const left = all.filter((spec) => !ran.has(`${spec.project.name}:${spec.moduleId}`));
    if (left.length > 0) return `${left.length} test file(s) did not run`;
    return null;
  }
}

function readCommitted(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The first lines only one of the two texts holds, marked `-` (committed) and `+` (this run). */
function differences(committed: string, observed: string): string[] {
  const before = new Set(committed.split('\n'));
  const after = new Set(observed.split('\n'));
  const clip = (line: string) => (line.length > 200 ? `${line.slice(0, 199)}…` : line);
  const removed = [...before].filter((line) => !after.has(line)).map((line) => `  - ${clip(line)}`);
  const added = [...after].filter((line) => !before.has(line)).map((line) => `  + ${clip(line)}`);
  const shown = [...removed, ...added];
  const more = shown.length - SHOWN_DIFFERENCES;
  return [...shown.slice(0, SHOWN_DIFFERENCES), ...(more > 0 ? [`  … and ${more} more differing lines`] : [])];
}
