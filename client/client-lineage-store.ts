import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBLineageStore } from '../adapters/dynamodb-lineage-store';
import { DEFAULT_HEAD_LAYOUT } from '../shared/ports/head-layout';

/** Manifests a client keeps ({@link clientLineageStore}): each at most 64 KiB of canonical JSON in UTF-8, so at most 4 MiB of it. */
export const CLIENT_MANIFEST_CACHE = 64;

/**
 * The lineage table as a client reads it: the DynamoDB store keeping the last
 * {@link CLIENT_MANIFEST_CACHE} manifests its record reads showed to hash to their digest
 * (`ChainStoreOptions.manifestCache`), so proving one write after another reads the agent's
 * manifest item once (docs/pipeline.md, "Learning the outcome of a write"). Nothing is trusted
 * for being kept: a record is still checked whole against the digest its header names.
 */
export function clientLineageStore(dynamodb: DynamoDBClient, tableName: string): DynamoDBLineageStore {
  return new DynamoDBLineageStore(dynamodb, tableName, DEFAULT_HEAD_LAYOUT, { manifestCache: CLIENT_MANIFEST_CACHE });
}
