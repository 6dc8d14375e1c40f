import { defineConfig } from 'vitest/config';

/**
 * Three speeds of tests (STYLE.md §8): `unit` never touches the network, `infra` synthesizes
 * the CDK stack, `integration` drives the deployed stack on the emulator that its global setup
 * starts (or on `AWS_ENDPOINT_URL`).
 */
export default defineConfig({
  test: {
    coverage: {
      provider: 'v8',
      include: ['shared/**/*.ts'],
      reporter: ['text-summary', 'text'],
      thresholds: { 'shared/**/*.ts': { lines: 95 } },
    },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
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
