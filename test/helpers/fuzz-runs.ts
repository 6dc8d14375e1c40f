/** Generated inputs per fuzzed handler when `FUZZ_RUNS` is not set: the count docs/guarantees.md records. */
export const DEFAULT_FUZZ_RUNS = 1000;

/**
 * Generated inputs per fuzzed handler: {@link DEFAULT_FUZZ_RUNS}, or `FUZZ_RUNS` for a longer hunt
 * (`FUZZ_RUNS=20000 npx vitest run --project unit test/unit/fuzz`).
 *
 * @throws {Error} when `FUZZ_RUNS` is set to anything but a positive integer
 */
export function fuzzRuns(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.FUZZ_RUNS;
  if (text === undefined || text === '') return DEFAULT_FUZZ_RUNS;
  const runs = Number(text);
  if (!Number.isSafeInteger(runs) || runs < 1) {
    throw new Error(`FUZZ_RUNS must be a positive integer (inputs per fuzzed handler), got ${JSON.stringify(text)}`);
  }
  return runs;
}
