import { InvalidInputError } from '../../shared/errors';

/**
 * The sealer's `SIGN_LINEAGE_CHECKPOINTS` setting (docs/deployment-log.md, "What changes for the
 * sealer"): unset or `true` signs a lineage checkpoint per run (transitional), `false` MACs heads
 * alone. Anything else fails the cold start rather than guess.
 *
 * @throws {InvalidInputError} for a value other than `true`, `false` or empty
 */
export function signLineageCheckpoints(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidInputError('SIGN_LINEAGE_CHECKPOINTS', [{ path: '', message: 'expected true or false' }]);
}
