/**
 * Writes test/vectors/item-layout.json: run
 * `npx tsx test/unit/adapters/item-layout.generate.ts > /tmp/item-layout.json && mv /tmp/item-layout.json test/vectors/item-layout.json`,
 * then review the diff by hand. `item-layout-vectors.test.ts` builds the vectors again with the
 * real codec and compares, so a layout change fails there (and in the Python package's reader)
 * until the file is regenerated.
 */
import { itemLayoutVectors } from '../../helpers/item-layout-vectors';

process.stdout.write(`${JSON.stringify(await itemLayoutVectors(), null, 2)}\n`);
