/**
 * Format version carried by every hashed structure and every domain tag. A verifier refuses
 * structures of a version it does not know instead of guessing their layout.
 */
export const FORMAT_VERSION = 1 as const;

/**
 * Domain-separation tags, one per purpose, so a hash of one kind can never be replayed as
 * another (docs/canonical-form.md).
 *
 * Byte layout of every Reseal hash (reproducible in any language):
 * `SHA-256( ASCII(tag) || 0x00 || message )`, rendered as 64 lowercase hex characters, where
 * `message` is the RFC 8785 canonical UTF-8 form of the structure (or raw bytes for
 * {@link hashBytes}).
 */
export const HashDomain = {
  /** A residual's payload (`payload_hash`). */
  PAYLOAD: 'reseal/v1/payload',
  /** A record header: the record hash, which the next record names as `parent_record_hash`. */
  RECORD_HEADER: 'reseal/v1/record-header',
  /** The parent of seq 0 of a lineage, derived from the lineage id. */
  GENESIS: 'reseal/v1/genesis',
  /** One environment key with its value (a `baseline_key_hashes` entry). */
  ENV_KEY: 'reseal/v1/env-key',
  /** The composite seal over every key hash (`precondition_seal`). */
  COMPOSITE_SEAL: 'reseal/v1/precondition-seal',
  /** A whole sealed dependency manifest, named by the record header. */
  MANIFEST: 'reseal/v1/manifest',
  /** A record's `variablesUsed` (the guard's variables and freshness receipts), named by the record header. */
  VARIABLES: 'reseal/v1/variables',
  /** A guard verdict (`verdict_digest`). */
  VERDICT: 'reseal/v1/verdict-digest',
  /** A value a freshness probe observed (in a freshness probe receipt). */
  VALUE: 'reseal/v1/value',
  /** A triage report. */
  TRIAGE_REPORT: 'reseal/v1/triage-report',
  /** A residual write request as the client published it (`requestDigest`), named by signed outcomes. */
  WRITE_REQUEST: 'reseal/v1/write-request',
  /** The stored details of a refusal (issues, variables, heads), named by its signed outcome statement. */
  OUTCOME_CONTENT: 'reseal/v1/outcome-content',
  /** The path of a verifiable-index key: which of the 2^256 leaves it names (docs/verifiable-index.md, "Keys"). */
  INDEX_KEY: 'reseal/v1/index-key',
  /** A verifiable-index entry, key and value (`valueDigest`, docs/verifiable-index.md, "Entries"). */
  INDEX_ENTRY: 'reseal/v1/index-entry',
  /** A verifiable-index leaf: key path and entry digest, 64 raw bytes (docs/verifiable-index.md, "Hashing"). */
  INDEX_LEAF: 'reseal/v1/index-leaf',
  /** A verifiable-index interior node: two child hashes, 64 raw bytes (docs/verifiable-index.md, "Hashing"). */
  INDEX_NODE: 'reseal/v1/index-node',
  /** Every empty subtree of the verifiable index, at any depth: an empty message (docs/verifiable-index.md, "Hashing"). */
  INDEX_EMPTY: 'reseal/v1/index-empty',
  /** The 32-byte message a writer signs: a write request without its signature block, by digests (docs/authorship.md). */
  SIGNED_WRITE: 'reseal/v1/signed-write',
  /** A record's writer block with the SQS `SenderId` (`writerDigest`, docs/authorship.md). */
  WRITER: 'reseal/v1/writer',
  /** A write's session boundary and declared immutable constants (`boundaryDigest`, docs/authorship.md). */
  BOUNDARY: 'reseal/v1/boundary',
  /** A lineage write policy (`policyDigest`); its first 32 hex characters end a self-certifying lineage id. */
  LINEAGE_POLICY: 'reseal/v1/lineage-policy',
  /** A deployment-log leaf: one verifiable-index root, 32 raw bytes (docs/deployment-log.md, "Leaves"). */
  DEPLOYMENT_LEAF: 'reseal/v1/deployment-leaf',
  /** A deployment-log leaf after a re-anchor: index root and statement hash, 64 raw bytes (docs/deployment-log.md, "Re-anchor"). */
  DEPLOYMENT_LEAF_RE_ANCHORED: 'reseal/v1/deployment-leaf-re-anchored',
  /** A re-anchor statement's text, UTF-8 (docs/deployment-log.md, "Re-anchor"). */
  RE_ANCHOR: 'reseal/v1/re-anchor',
  /** A lineage's head state, the message of its head-state MAC (docs/verifiable-log.md, "Appending"). */
  HEAD_STATE: 'reseal/v1/head-state',
  /**
   * The head states one sealer invocation MACs together, by their {@link HEAD_STATE} digests: the
   * message of a batch head-state MAC (docs/verifiable-log.md, "Appending").
   */
  HEAD_STATE_BATCH: 'reseal/v1/head-state-batch',
  /**
   * A lineage's head state, the message of its MAC under a notice data key (in-process
   * HMAC-SHA-256, no KMS call; docs/verifiable-log.md, "Appending").
   */
  HEAD_STATE_KEY: 'reseal/v1/head-state-key',
  /**
   * The root of the RFC 9162 tree over the record hashes one sealer invocation seals: the message
   * of a batch record MAC (docs/sealing.md, "The record and its seal").
   */
  RECORD_BATCH: 'reseal/v1/record-batch',
} as const;

/**
 * Tag of a seal request's SQS `MessageDeduplicationId`: hex SHA-256 of `ASCII(tag) || 0x0A ||
 * JCS(request)`. A newline, not the NUL of {@link HashDomain}, separates tag and message (the
 * layout it has always had), so it is declared apart from them. Its bytes hold no 0x00 (canonical
 * JSON escapes U+0000), so they never equal the bytes of a {@link HashDomain} hash
 * (docs/canonical-form.md, "Tags and input objects").
 */
export const SEAL_DEDUP_TAG = 'reseal/v1/seal-dedup';

/** One of the {@link HashDomain} tags. */
export type HashDomainTag = (typeof HashDomain)[keyof typeof HashDomain];
