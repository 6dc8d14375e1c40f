import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// In the repository the package's own names resolve to its sources (as tsconfig.json's paths);
// the built package (dist/) is tested as installed, by test/integration/package.test.ts.
const resolve = {
  alias: [
    { find: /^reseal$/, replacement: source('./client/index.ts') },
    { find: /^reseal\/core$/, replacement: source('./shared/index.ts') },
    { find: /^reseal\/mcp$/, replacement: source('./mcp/index.ts') },
    { find: /^reseal\/openai-agents$/, replacement: source('./frameworks/openai-agents/index.ts') },
  ],
};

/**
 * Three speeds of tests (README.md, "Tests"): `unit` never touches the network, `infra` synthesizes
 * the CDK stack, `integration` drives the deployed stack on the emulator that its global setup
 * starts (or on `AWS_ENDPOINT_URL`).
 */
export default defineConfig({
  test: {
    // After a complete run only, the guarantees reporter writes the table to .test-output/ and fails the
    // run when it differs from docs/guarantees.md (README.md, "Tests").
    reporters: ['default', './test/reporters/guarantees-reporter.ts'],
    coverage: {
      provider: 'v8',
      include: ['shared/**/*.ts'],
      reporter: ['text-summary', 'text'],
      thresholds: { 'shared/**/*.ts': { lines: 95 } },
    },
    projects: [
      {
        resolve,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // A guard against hangs only: property tests are bounded by their run counts, and the
          // slowest took 13 s at a load average of 8 on a shared 2-core machine. The handler fuzz
          // tests set their own, longer limit (FUZZ_TIMEOUT_MS).
          testTimeout: 120_000,
        },
      },
      {
        resolve,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        resolve,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
