/**
 * Names of a stack's verifiable log (docs/verifiable-log.md, "Names"). One Ed25519 key signs the
 * checkpoints of every lineage of a stack; the checkpoint origin names the lineage, so a
 * checkpoint of one lineage can never pass for another's.
 */

/** Prefix of every Reseal log name. */
export const LOG_NAME_PREFIX = 'reseal';

/**
 * The log's signed-note key name for a stack: `reseal/<stackName>`. CloudFormation stack names
 * are `[A-Za-z][A-Za-z0-9-]*`, so the name holds no space or `+` (C2SP signed-note key names).
 */
export function logNameOf(stackName: string): string {
  return `${LOG_NAME_PREFIX}/${stackName}`;
}

/** The checkpoint origin of a lineage (C2SP tlog-checkpoint first line): `<logName>/<lineageId>`. */
export function checkpointOrigin(logName: string, lineageId: string): string {
  return `${logName}/${lineageId}`;
}

/** The guard's signed-note key name: `<logName>/guard`. */
export function guardKeyName(logName: string): string {
  return `${logName}/guard`;
}
