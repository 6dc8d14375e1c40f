import { InvalidInputError } from '../errors';

/**
 * Names of a stack's logs. One Ed25519 key per stack signs the checkpoints of every lineage, so
 * the key name names the stack and each origin adds the lineage. (C2SP tlog-checkpoint suggests
 * key name = origin; with one key per stack the origin line carries the lineage instead.)
 */

/** A CloudFormation stack name: a letter, then letters, digits and hyphens, at most 128 characters. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

/**
 * Checks a CloudFormation stack name, which each of a stack's log names starts with.
 * @throws {InvalidInputError} for an invalid stack name
 */
export function requireStackName(stackName: string): void {
  if (typeof stackName !== 'string' || !STACK_NAME.test(stackName)) {
    throw new InvalidInputError('stack name', [
      { path: '', message: 'expected a CloudFormation stack name ([A-Za-z][A-Za-z0-9-]{0,127})' },
    ]);
  }
}

/**
 * Note key name of a stack's checkpoint key: `reseal/<stackName>`.
 * @throws {InvalidInputError} for an invalid stack name
 */
export function logKeyName(stackName: string): string {
  requireStackName(stackName);
  return `reseal/${stackName}`;
}

/**
 * The log name of a stack (`reseal/<stackName>`): the key name of its checkpoint key, which the
 * functions receive as `LOG_NAME` and a client reads from the stack output `LogName`.
 */
export const logNameOf = logKeyName;

/** The signed-note key name of a stack's guard key: `<logName>/guard`. */
export function guardKeyName(logName: string): string {
  return `${logName}/guard`;
}

/**
 * The signed-note key name of a stack's sealer key: `<logName>/sealer`. The sealer key signs the
 * sealer's refusals only (docs/verifiable-log.md, "Keys"), so the log key's `kms:Sign` can be
 * the integrator's alone (docs/deployment-log.md, "What changes for the sealer").
 */
export function sealerKeyName(logName: string): string {
  return `${logName}/sealer`;
}
