/** The committed guarantees table (docs/guarantees.md, "Guarantees"). */
export const COMMITTED_GUARANTEES = 'docs/guarantees.md';

/**
 * Where a complete test run writes its guarantees table: untracked (.gitignore), so a test run
 * never modifies a tracked file. `npm run guarantees:update` copies it onto
 * {@link COMMITTED_GUARANTEES}.
 */
export const GENERATED_GUARANTEES = '.test-output/guarantees.md';

/**
 * Written beside {@link GENERATED_GUARANTEES} when a test or a test file of the run failed: a file
 * whose setup threw recorded no rows, so its table may miss rows and must not be committed.
 */
export const FAILED_RUN_MARKER = '.test-output/guarantees.failed-run';

/** The command that copies {@link GENERATED_GUARANTEES} onto {@link COMMITTED_GUARANTEES}. */
export const UPDATE_COMMAND = 'npm run guarantees:update';
