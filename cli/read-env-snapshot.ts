import type { EnvSnapshot } from '../shared/schemas/env-snapshot';
import { parseEnvSnapshot } from '../shared/schemas/env-snapshot';
import { MAX_ENV_SNAPSHOT_BYTES } from '../shared/schemas/env-snapshot-limits';
import { groupedCount } from '../shared/schemas/grouped-count';
import { ownKeyCount } from '../shared/schemas/own-key-count';
import type { Validated } from '../shared/schemas/validated';
import type { CliIo } from './io';
import { megabytes } from './megabytes';
import { readJsonFile, validateFileContent } from './read-file';
import type { StatusLine } from './status-line';

const WHAT = 'environment snapshot';

/**
 * Reads an `--env` file (`manifest`, `triage`, `recall`) within the environment snapshot limits
 * (docs/cli.md, "Input limits"): a file over `MAX_ENV_SNAPSHOT_BYTES` is refused before it is read
 * whole, a snapshot over `MAX_ENV_SNAPSHOT_KEYS` keys before any key is checked, each refusal
 * naming the limit and the size found. Then the snapshot is validated once (`parseEnvSnapshot`:
 * the hand-written check for printable-ASCII keys, else the schema). `status` shows the bytes
 * read and the keys being checked (on a terminal, without `--json`).
 *
 * @throws {BadInputError} naming the file and the limit, or each bad key or value
 */
export async function readEnvSnapshotFile(
  io: CliIo,
  path: string,
  status: StatusLine,
): Promise<Validated<EnvSnapshot>> {
  try {
    const raw = await readJsonFile(io, path, WHAT, {
      maxBytes: MAX_ENV_SNAPSHOT_BYTES,
      name: 'MAX_ENV_SNAPSHOT_BYTES',
      onBytes: (done, size) =>
        status.show(
          size === 0
            ? `${path}: read ${megabytes(done)}`
            : done < size
              ? `${path}: read ${megabytes(done)} of ${megabytes(size)}`
              : `${path}: read ${megabytes(done)}, parsing`,
        ),
    });
    status.show(`${path}: checking ${groupedCount(ownKeyCount(raw))} keys`);
    return validateFileContent(path, WHAT, () => parseEnvSnapshot(raw, WHAT));
  } catch (error) {
    status.finish();
    throw error;
  }
}
