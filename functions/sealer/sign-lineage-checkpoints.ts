import { InvalidInputError } from '../../shared/errors';

/**
 * The sealer's `SIGN_LINEAGE_CHECKPOINTS` setting (docs/deployment-log.md, "What changes for the
 * sealer", step 3): unset, empty or `false` MACs heads alone (no `Sign` per run); `true` also signs
 * a lineage checkpoint per run, as the sealer did before step 3. Anything else fails the cold start
 * rather than guess.
 *
 * @throws {InvalidInputError} for a value other than `true`, `false` or empty
 */
export function signLineageCheckpoints(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new InvalidInputError('SIGN_LINEAGE_CHECKPOINTS', [{ path: '', message: 'expected true or false' }]);
}
