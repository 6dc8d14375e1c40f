/**
 * The keys of the single lineage table (string `pk`, `sk`; docs/pipeline.md, "Data layout"):
 * the only place that knows them. The IAM grants of infra/constructs/lineage-store.ts import
 * the partition prefixes from here, so a grant and the items it covers cannot drift apart.
 */

/** Partition prefix of a lineage's records, head, residual-id markers and conflicts. */
export const LINEAGE_KEY_PREFIX = 'LINEAGE#';
/** Partition prefix of the stored triage reports (`TRIAGE#<lineageId>`). */
export const TRIAGE_REPORT_KEY_PREFIX = 'TRIAGE#';
/** Partition prefix of the rejection records (`REJECTION#<lineageId>`). */
export const REJECTION_KEY_PREFIX = 'REJECTION#';
/**
 * Partition prefix of the content-addressed manifests (`MANIFEST#<lineageId>#<manifestDigest>`):
 * one item per distinct manifest of a lineage, shared by every record of that lineage whose header
 * names that digest. The lineage id in the key puts a tenant's manifests under `MANIFEST#<tenant>/`,
 * so `dynamodb:LeadingKeys` confines them to the tenant (docs/authorship.md, "Tenancy", "Reads").
 * Items of the earlier layout, `MANIFEST#<manifestDigest>` shared across lineages, are still read.
 */
export const MANIFEST_KEY_PREFIX = 'MANIFEST#';
/** Partition prefix of the deployment log's items (`DEPLOYMENT#log`) and evidence (`DEPLOYMENT#evidence`). */
export const DEPLOYMENT_KEY_PREFIX = 'DEPLOYMENT#';
/** Partition prefix of the verifiable index's nodes (`INDEX#<64 hex>`, content-addressed). */
export const INDEX_NODE_KEY_PREFIX = 'INDEX#';
/** Sort-key prefix of every record (`begins_with` for the last record). */
export const RECORD_SK_PREFIX = 'RECORD#';
/** Sort-key prefix of the conflict records in a lineage's partition. */
export const CONFLICT_SK_PREFIX = 'CONFLICT#';
/** Sort-key prefix of the residual-id markers in a lineage's partition. */
export const RESIDUAL_SK_PREFIX = 'RESIDUAL#';

/**
 * Partition suffix of rejections whose body names no usable lineage. `~` is outside the
 * identifier alphabet, so no real lineage (not even one named `unparsed`) can share it.
 */
export const UNPARSED_LINEAGE = '~unparsed';

/** 0000-01-01T00:00:00.000Z, ms: the earliest time whose ISO string has the four-digit year rejection keys sort by. */
export const ISO_SORTABLE_MIN_MS = -62_167_219_200_000;
/** 9999-12-31T23:59:59.999Z, ms: the latest such time. */
export const ISO_SORTABLE_MAX_MS = 253_402_300_799_999;

/** The key of every item of the table. */
export const LineageKeys = {
  lineage: (lineageId: string) => `${LINEAGE_KEY_PREFIX}${lineageId}`,
  /** `RECORD#` and the seq in 16 digits, so the sort order of keys is the order of seqs. */
  record: (seq: number) => `${RECORD_SK_PREFIX}${String(seq).padStart(16, '0')}`,
  /** Prefix of every record sk (`begins_with` for the last record). */
  recordPrefix: RECORD_SK_PREFIX,
  head: 'HEAD',
  /** The residual-id marker lives in its lineage's partition: ids are scoped to the lineage. */
  residualSk: (residualId: string) => `${RESIDUAL_SK_PREFIX}${residualId}`,
  /** One item per refused message: two writes of one residual id refused at the same time stay two. */
  conflict: (residualId: string, atMs: number, messageId: string) =>
    `${CONFLICT_SK_PREFIX}${residualId}#${new Date(atMs).toISOString()}#${messageId}`,
  /** Sort-key prefix of one write's conflicts. */
  conflictsOf: (residualId: string) => `${CONFLICT_SK_PREFIX}${residualId}#`,
  rejection: (lineageId: string | null) => `${REJECTION_KEY_PREFIX}${lineageId ?? UNPARSED_LINEAGE}`,
  rejectionSk: (atMs: number, messageId: string) => `${new Date(atMs).toISOString()}#${messageId}`,
  /**
   * The lowest rejection sk of a time at or after `sinceMs` (its ISO prefix: `sk >= floor` leaves
   * out exactly the rejections filed earlier), or `null` when no bound can be written: `sinceMs`
   * not a number, or outside years 0000–9999, where `toISOString` changes format (`-000001-…`,
   * `+010000-…`) and its strings no longer sort as their times do. Read the whole partition then.
   */
  rejectionSkFloor: (sinceMs: number): string | null => {
    const ms = Math.ceil(sinceMs);
    return ms >= ISO_SORTABLE_MIN_MS && ms <= ISO_SORTABLE_MAX_MS ? new Date(ms).toISOString() : null;
  },
  triage: (lineageId: string) => `${TRIAGE_REPORT_KEY_PREFIX}${lineageId}`,
  /** The item of a lineage's manifest, keyed by the lineage and its digest (a record header's `manifestDigest`). */
  manifest: (lineageId: string, digest: string) => `${MANIFEST_KEY_PREFIX}${lineageId}#${digest}`,
  /** The earlier layout's manifest item, shared across lineages (read only, for records sealed before). */
  sharedManifest: (digest: string) => `${MANIFEST_KEY_PREFIX}${digest}`,
  /** The manifest digest a manifest item's partition key ends with (either layout). */
  manifestDigestOf: (pk: string) => pk.slice(pk.lastIndexOf('#') + 1),
  manifestSk: 'MANIFEST',
  /** The deployment log's head and leaves (docs/deployment-log.md, "Storage"). */
  deploymentLog: `${DEPLOYMENT_KEY_PREFIX}log`,
  /** `LEAF#` and the leaf index in 16 digits. */
  deploymentLeaf: (index: number) => `LEAF#${String(index).padStart(16, '0')}`,
  deploymentEvidence: `${DEPLOYMENT_KEY_PREFIX}evidence`,
  /** The integration lease (docs/deployment-log.md, "One integration at a time"), sk `LEASE`. */
  deploymentLease: `${DEPLOYMENT_KEY_PREFIX}lease`,
  /** One index node under its hash (hex). */
  indexNode: (hashHex: string) => `${INDEX_NODE_KEY_PREFIX}${hashHex}`,
  indexNodeSk: 'NODE',
} as const;
