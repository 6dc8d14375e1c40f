import { gunzipSync, gzipSync } from 'node:zlib';
import { canonicalJson } from '../shared/canonical/canonical-json';
import { ManifestReadBoundError } from '../shared/errors';
import type { SealedRecord } from '../shared/seal/sealed-record';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { NOT_JSON, readAttribute, readBinary, readStoredJson, readString } from './read-attribute';

/**
 * The content-addressed item of a record's manifest: keyed by the record's lineage and the digest
 * its header names (`MANIFEST#<lineageId>#<manifestDigest>`), the manifest's canonical JSON
 * gzip-compressed in binary attribute `manifest` (its baseline hashes are hex text, about half of
 * which gzip takes back). Every record of the lineage naming that digest shares it; the reader
 * reattaches it and the verifier recomputes the digest (docs/sealing.md, "Stored items"). Keyed
 * by lineage so that a tenant's manifests are its own partitions (docs/authorship.md, "Tenancy", "Reads").
 */
export function manifestItem(record: SealedRecord): Item {
  return itemOf({
    pk: LineageKeys.manifest(record.header.lineageId, record.header.manifestDigest),
    sk: LineageKeys.manifestSk,
    manifest: gzipSync(canonicalJson(record.manifest)),
  });
}

/**
 * Most bytes a stored manifest may inflate to: a manifest item holds at most 400 KB compressed,
 * and this bounds what a planted one (a "zip bomb") can make a reader allocate.
 */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * Most bytes the manifests of one read (`readRecord`, one `readChain` page) may inflate to
 * together: N planted items of {@link MAX_MANIFEST_BYTES} each would otherwise cost N × 4 MiB of
 * inflation and memory (docs/sealing.md, "Stored items").
 */
export const MAX_MANIFEST_BYTES_PER_READ = 64 * 1024 * 1024;

/** What is left of one read's {@link MAX_MANIFEST_BYTES_PER_READ}; {@link manifestOf} spends it. */
export class ManifestReadBudget {
  /** Bytes the manifests of this read may still inflate to. */
  remaining: number;
  constructor(bytes: number = MAX_MANIFEST_BYTES_PER_READ) {
    this.remaining = bytes;
  }
}

/**
 * The stored manifest of a manifest item: the parsed JSON; the text when it does not parse, or
 * `null` when the attribute is not binary, not gzip, or inflates past {@link MAX_MANIFEST_BYTES}
 * (either way the verifier refuses the record); `undefined` when the item has no `manifest`. What
 * it inflates is taken from `budget` (a fresh one by default: one item read alone).
 * @throws {ManifestReadBoundError} naming the item's digest when it would take the read's
 *   manifests past the budget's bound: the read stops there, never holding more
 */
export function manifestOf(item: Item, budget: ManifestReadBudget = new ManifestReadBudget()): unknown {
  if (readAttribute(item, 'manifest') === undefined) return undefined;
  const bytes = readBinary(item, 'manifest');
  if (!bytes) return null;
  const limit = Math.min(MAX_MANIFEST_BYTES, budget.remaining);
  const overBudget = () =>
    new ManifestReadBoundError(LineageKeys.manifestDigestOf(readString(item, 'pk') ?? ''), MAX_MANIFEST_BYTES_PER_READ);
  if (limit < 1) throw overBudget();
  let text: string;
  try {
    const inflated = gunzipSync(bytes, { maxOutputLength: limit });
    budget.remaining -= inflated.byteLength;
    text = inflated.toString('utf8');
  } catch (error) {
    // Past the budget but maybe within the per-item cap: the read stops, whichever it was.
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' && limit < MAX_MANIFEST_BYTES) throw overBudget();
    return null;
  }
  const value = readStoredJson(text);
  return value === NOT_JSON ? text : value;
}

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/**
 * The manifest digest a stored record names when its item carries no manifest of its own (the
 * content-addressed layout), else `undefined`: a format-1 item, which embeds its manifest, or a
 * record too malformed to name a well-formed digest (the verifier refuses it as it stands).
 */
export function sharedManifestDigestOf(stored: unknown): string | undefined {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return undefined;
  if (Object.hasOwn(stored, 'manifest')) return undefined;
  const header = (stored as { header?: unknown }).header;
  if (header === null || typeof header !== 'object') return undefined;
  const digest = (header as { manifestDigest?: unknown }).manifestDigest;
  return typeof digest === 'string' && HEX_DIGEST.test(digest) ? digest : undefined;
}

/**
 * `stored` with the manifest of its shared item put back, as the record was sealed; unchanged when
 * it embeds one, names none, or its manifest item is missing (the record then fails the strict
 * record schema: tampering, never a pass).
 */
export function withSharedManifest(stored: unknown, manifests: ReadonlyMap<string, unknown>): unknown {
  const digest = sharedManifestDigestOf(stored);
  if (digest === undefined || !manifests.has(digest)) return stored;
  return { ...(stored as object), manifest: manifests.get(digest) };
}
