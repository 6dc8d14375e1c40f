import type { IndexNodeMissingError } from '../errors';
import type { IntegrationEvidence } from './integration-evidence';

/**
 * The `INDEX_NODE_MISSING` evidence of a lineage left out of an integration because its path
 * crosses a node the store does not hold, or holds edited (docs/deployment-log.md, "Integration",
 * step 2, and "Index rebuild"): the store's message and where the rebuild is told.
 */
export const missingNodeEvidence = (lineageId: string, error: IndexNodeMissingError): IntegrationEvidence => ({
  kind: 'INDEX_NODE_MISSING',
  lineageId,
  reason: `${error.message}; a key of this lineage lies below it (docs/deployment-log.md, "Index rebuild")`,
});
