/**
 * Writes test/vectors/outcome.json: run
 * `npx tsx test/unit/shared/log/outcome-vectors.generate.ts > /tmp/outcome.json && mv /tmp/outcome.json test/vectors/outcome.json`,
 * then review the diff by hand. `outcome-statement.test.ts` builds the vectors again and compares.
 */
import { outcomeVectors } from '../../../helpers/outcome-vectors';

process.stdout.write(`${JSON.stringify(await outcomeVectors(), null, 2)}\n`);
