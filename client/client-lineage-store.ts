import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBLineageStore } from '../adapters/dynamodb-lineage-store';
import { DEFAULT_HEAD_LAYOUT } from '../shared/ports/head-layout';
import type { ManifestCache } from '../shared/ports/manifest-cache';
import { MemoryManifestCache } from '../shared/triage/memory-manifest-cache';

/** Manifests a client keeps in memory ({@link clientLineageStore}): each at most 64 KiB of canonical JSON in UTF-8, so at most 4 MiB of it. */
export const CLIENT_MANIFEST_CACHE = 64;

/**
 * The lineage table as a client reads it: the DynamoDB store keeping the manifests its record
 * reads showed to hash to their digest in `manifestCache` (`ChainStoreOptions.manifestCache`;
 * default the last {@link CLIENT_MANIFEST_CACHE} in memory; the CLI's, a `FileManifestCache`), so
 * proving one write after another reads the agent's manifest item once (docs/pipeline.md,
 * "Learning the outcome of a write"). Nothing is trusted for being kept: a kept manifest is used
 * only once it hashes to the digest the record names, and the record is still checked whole.
 */
export function clientLineageStore(
  dynamodb: DynamoDBClient,
  tableName: string,
  manifestCache: ManifestCache = new MemoryManifestCache(CLIENT_MANIFEST_CACHE),
): DynamoDBLineageStore {
  return new DynamoDBLineageStore(dynamodb, tableName, DEFAULT_HEAD_LAYOUT, { manifestCache });
}
