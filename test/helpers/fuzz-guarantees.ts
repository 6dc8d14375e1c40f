import fc from 'fast-check';
import type { TestContext } from 'vitest';
import { expectGuarantee } from './guarantees';

/** Where a fuzzed input class was run, and through what: one row per invariant of the guarantees table (expectGuarantee). */
export interface FuzzRow {
  /** The handler: `guard (GuardService.handle)`, `sealer (SealerService.handleGroup)`, … */
  readonly target: string;
  /** The input class, e.g. `residual-writes bodies: mutated valid requests`. */
  readonly attack: string;
  /** Where the invariants are checked: `in process`, `deployed stack`. */
  readonly reader: string;
}

/**
 * Attributes a fuzz property's violations to the invariant being checked when it failed
 * (docs/guarantees.md, "Fuzzing"), so each invariant is its own row of the guarantees table.
 *
 * The property calls {@link InvariantTracker.at} before each group of assertions and runs its
 * body through {@link InvariantTracker.run}; {@link InvariantTracker.check} then runs the property
 * with `fc.check` and records one `fuzzing` row per invariant, expected `<invariant>: <runs> runs,
 * 0 violations`. Written before the runs, so a violation shows as observed in the table.
 */
export class InvariantTracker<Name extends string> {
  readonly #invariants: readonly Name[];
  readonly #violations = new Map<Name, number>();
  #current: Name;

  constructor(invariants: readonly [Name, ...Name[]]) {
    this.#invariants = invariants;
    this.#current = invariants[0];
  }

  /** The invariant the next assertions check. */
  at(name: Name): void {
    this.#current = name;
  }

  /** Runs one input's checks; a throw counts as a violation of the current invariant, and is rethrown. */
  async run<T>(body: () => Promise<T>): Promise<T> {
    this.#current = this.#invariants[0] as Name;
    try {
      return await body();
    } catch (error) {
      this.#violations.set(this.#current, (this.#violations.get(this.#current) ?? 0) + 1);
      throw error;
    }
  }

  /**
   * Runs `property` `numRuns` times, records a row per invariant, and fails with fast-check's
   * report (seed, counterexample) on any violation.
   */
  async check<Ts>(
    context: TestContext,
    row: FuzzRow,
    property: fc.IAsyncProperty<Ts>,
    params: fc.Parameters<Ts> & { numRuns: number },
  ): Promise<void> {
    const details = await fc.check(property, params);
    const ran = details.failed ? details.numRuns : params.numRuns;
    const failures: unknown[] = [];
    for (const invariant of this.#invariants) {
      const violations = this.#violations.get(invariant) ?? 0;
      try {
        expectGuarantee(
          context,
          { section: 'fuzzing', ...row, expected: `${invariant}: ${params.numRuns} runs, 0 violations` },
          `${invariant}: ${ran} runs, ${violations} violation${violations === 1 ? '' : 's'}`,
        );
      } catch (error) {
        failures.push(error);
      }
    }
    if (details.failed) {
      const cause = details.errorInstance;
      const why = cause instanceof Error ? cause.message : String(cause);
      throw new Error(`${fc.defaultReportMessage(details) ?? 'property failed'}\n${why}`, { cause });
    }
    if (failures.length > 0) throw failures[0];
  }
}
