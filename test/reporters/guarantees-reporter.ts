import { writeFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import { type GuaranteeRow, renderGuarantees } from './render-guarantees';

/** The projects a complete run has (vitest.config.ts). */
const PROJECTS = ['unit', 'infra', 'integration'] as const;

/**
 * Writes docs/guarantees.md at the end of a complete run (issue 8, part 5): every project ran,
 * every test file of each ran, and no name filter was given (`npm test`). A filtered, partial or
 * interrupted run leaves the file as it is, so it is never replaced by a partial table.
 */
export default class GuaranteesReporter implements Reporter {
  #vitest: Vitest | undefined;
  readonly #output: string;

  /** @param options.output - the file to write, relative to the root (default `docs/guarantees.md`) */
  constructor(options: { output?: string } = {}) {
    this.#output = options.output ?? 'docs/guarantees.md';
  }

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  async onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason): Promise<void> {
    const vitest = this.#vitest;
    if (!vitest || reason === 'interrupted') return;
    const why = await this.#incomplete(vitest, modules);
    if (why) {
      vitest.logger.log(`guarantees: ${this.#output} not written (${why})`);
      return;
    }
    const root = vitest.config.root;
    const rows: GuaranteeRow[] = [];
    for (const module of modules) {
      const file = relative(root, module.moduleId).split(sep).join('/');
      for (const test of module.children.allTests()) {
        const state = test.result().state === 'passed' ? 'pass' : 'fail';
        for (const guarantee of test.meta().guarantees ?? [])
          rows.push({ ...guarantee, test: test.fullName, file, state });
      }
    }
    writeFileSync(`${root}/${this.#output}`, renderGuarantees(rows));
    vitest.logger.log(`guarantees: ${rows.length} rows written to ${this.#output}`);
  }

  /** Why this run is not complete, or null when it is. */
  async #incomplete(vitest: Vitest, modules: ReadonlyArray<TestModule>): Promise<string | null> {
    if (vitest.config.testNamePattern) return 'a test name filter was given';
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
