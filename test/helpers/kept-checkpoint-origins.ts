import { readFileSync } from 'node:fs';
import { CHECKPOINT_FILE_FORMAT, CheckpointFileSchema } from '../../client/file-checkpoint-store';

/**
 * The origins a `FileCheckpointStore` file keeps, sorted, after checking it is the format the
 * client writes (docs/verifiable-log.md, "Checkpoints the client keeps"). With the sealer signing
 * no lineage checkpoint, a store a client read the deployment chain with holds exactly
 * `[LogName]`: the newest deployment checkpoint, and no `<LogName>/<lineageId>` key.
 * @throws when the file is missing or not a checkpoint file of {@link CHECKPOINT_FILE_FORMAT}
 */
export function keptCheckpointOrigins(path: string): string[] {
  const file = CheckpointFileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  if (file.formatVersion !== CHECKPOINT_FILE_FORMAT) throw new Error(`${path}: format ${file.formatVersion}`);
  return Object.keys(file.checkpoints).sort();
}
