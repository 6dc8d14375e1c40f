import { expect, type TestContext } from 'vitest';

/**
 * The sections of docs/guarantees.md: attacks by the table writer, faults of the
 * pipeline, fuzzed input per handler, and the posture of the synthesized template.
 */
export type GuaranteeSection = 'tampering' | 'faults' | 'fuzzing' | 'posture';

/**
 * One row of docs/guarantees.md, written down before the test observes anything.
 *
 * `expected` and the observed outcome are short outcome names as the reader reports them
 * (a verdict such as `HASH_MISMATCH`, `exit 20 TRUNCATION_DETECTED`, `sealed once`,
 * `refused INVALID_REQUEST under the lineage`, `absent`), so the table compares like with like.
 */
export interface Guarantee {
  readonly section: GuaranteeSection;
  /** What is attacked or faulted: a stored item type (`record`, `head`, …) or a component. */
  readonly target: string;
  /** The attack or fault, e.g. `edit payload`, `insert sk RECORD#~junk`, `KMS disabled`. */
  readonly attack: string;
  /** Where the outcome is observed: `verify`, `inspect`, `recall`, `publish --wait`, `export`, `client.recall`, a handler, the template. */
  readonly reader: string;
  /** Whether the reader was given a trusted checkpoint (tampering only). */
  readonly checkpoint?: boolean;
  /** The outcome the reader must report. */
  readonly expected: string;
}

/** A {@link Guarantee} with what the test observed; carried to the reporter in the test's `meta`. */
export interface ObservedGuarantee extends Guarantee {
  readonly observed: string;
}

declare module 'vitest' {
  interface TaskMeta {
    /** Rows of docs/guarantees.md this test observed (test/reporters/guarantees-reporter.ts). */
    guarantees?: ObservedGuarantee[];
  }
}

/**
 * Records what a test observed for a guarantee, then asserts it is the expected outcome.
 *
 * The row is recorded before the assertion, so a failing test still shows its observed outcome
 * in the table. One test may record several rows (one per reader, say).
 *
 * @param context - the running test's context (`test('…', (context) => …)`)
 */
export function expectGuarantee(context: TestContext, guarantee: Guarantee, observed: string): void {
  context.task.meta.guarantees = [...(context.task.meta.guarantees ?? []), { ...guarantee, observed }];
  expect(observed, `${guarantee.section}: ${guarantee.attack} on ${guarantee.target} through ${guarantee.reader}`).toBe(
    guarantee.expected,
  );
}

/**
 * Records every row first, then asserts each one softly (`expect.soft`): a test that observes one
 * attack through many readers shows every reader's outcome in the table, and every mismatch in
 * its failure, not only the first.
 */
export function expectGuarantees(
  context: TestContext,
  rows: readonly { readonly guarantee: Guarantee; readonly observed: string }[],
): void {
  context.task.meta.guarantees = [
    ...(context.task.meta.guarantees ?? []),
    ...rows.map(({ guarantee, observed }) => ({ ...guarantee, observed })),
  ];
  for (const { guarantee, observed } of rows) {
    const mode =
      guarantee.checkpoint === undefined ? '' : guarantee.checkpoint ? ' with checkpoint' : ' without checkpoint';
    expect
      .soft(
        observed,
        `${guarantee.section}: ${guarantee.attack} on ${guarantee.target} through ${guarantee.reader}${mode}`,
      )
      .toBe(guarantee.expected);
  }
}
