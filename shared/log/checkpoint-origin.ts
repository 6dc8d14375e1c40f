import { Identifier } from '../schemas/identifier';
import { parseInput } from '../schemas/parse';
import { requireStackName } from './log-names';

/**
 * The origin line of a lineage's checkpoints: the log name of its stack, then the lineage. One
 * Ed25519 key per stack signs the checkpoints of every lineage, so the origin (not the key name)
 * tells the lineages apart.
 */

/**
 * Checkpoint origin of one lineage's log: `reseal/<stackName>/<lineageId>`.
 * @throws {InvalidInputError} for an invalid stack name or lineage id
 */
export function lineageOrigin(stackName: string, lineageId: string): string {
  requireStackName(stackName);
  return `reseal/${stackName}/${parseInput(Identifier, lineageId, 'lineage id')}`;
}

/**
 * The checkpoint origin of a lineage in the log named `logName`: `<logName>/<lineageId>`
 * (equal to {@link lineageOrigin} of the stack).
 */
export function checkpointOrigin(logName: string, lineageId: string): string {
  return `${logName}/${lineageId}`;
}
