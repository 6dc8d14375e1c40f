/**
 * Writes test/vectors/freshness.json: run
 * `npx tsx test/unit/shared/integrator/freshness-vectors.generate.ts > /tmp/freshness.json && mv /tmp/freshness.json test/vectors/freshness.json`,
 * then review the diff. `freshness-vectors.test.ts` builds them again and compares, so a change in
 * a decision fails there (and in the Python package's tests) until the file is regenerated.
 */
import { freshnessVectors } from '../../../helpers/freshness-vectors';

process.stdout.write(`${JSON.stringify(await freshnessVectors(), null, 2)}\n`);
