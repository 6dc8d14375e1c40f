import { createHash } from 'node:crypto';
import { canonicalBytes } from './canonical-json';

/**
 * Format version carried by every hashed structure and every domain tag. A verifier refuses
 * structures of a version it does not know instead of guessing their layout.
 */
export const FORMAT_VERSION = 1 as const;

/**
 * Domain-separation tags, one per purpose, so a hash of one kind can never be replayed as
 * another (DESIGN.md, "Hashing and canonical form").
 *
 * Byte layout of every Reseal hash (reproducible in any language):
 * `SHA-256( ASCII(tag) || 0x00 || message )`, rendered as 64 lowercase hex characters, where
 * `message` is the RFC 8785 canonical UTF-8 form of the structure (or raw bytes for
 * {@link hashBytes}).
 */
export const HashDomain = {
  /** A residual's payload (seed 003 `payload_hash`). */
  PAYLOAD: 'reseal/v1/payload',
  /** A record header: the record hash, which the next record names as `parent_record_hash`. */
  RECORD_HEADER: 'reseal/v1/record-header',
  /** The parent of seq 0 of a lineage, derived from the lineage id. */
  GENESIS: 'reseal/v1/genesis',
  /** One environment key with its value (seed 000 `baseline_key_hashes`). */
  ENV_KEY: 'reseal/v1/env-key',
  /** The composite seal over every key hash (seed 000 `precondition_seal`). */
  COMPOSITE_SEAL: 'reseal/v1/precondition-seal',
  /** A whole sealed dependency manifest, named by the record header. */
  MANIFEST: 'reseal/v1/manifest',
  /** A record's `variablesUsed` (the guard's variables and freshness receipts), named by the record header. */
  VARIABLES: 'reseal/v1/variables',
  /** A guard verdict (seed 004 `verdict_digest`). */
  VERDICT: 'reseal/v1/verdict-digest',
  /** A value a freshness probe observed (seed 004 `freshness_probe_receipt`). */
  VALUE: 'reseal/v1/value',
  /** A triage report. */
  TRIAGE_REPORT: 'reseal/v1/triage-report',
  /** A residual write request as the client published it (`requestDigest`), named by signed outcomes. */
  WRITE_REQUEST: 'reseal/v1/write-request',
  /** The stored details of a refusal (issues, variables, heads), named by its signed outcome statement. */
  OUTCOME_CONTENT: 'reseal/v1/outcome-content',
} as const;

/** One of the {@link HashDomain} tags. */
export type HashDomainTag = (typeof HashDomain)[keyof typeof HashDomain];

/** A SHA-256 digest as 64 lowercase hexadecimal characters. */
export type HexDigest = string;

/** Pattern of a {@link HexDigest}. */
export const HEX_DIGEST_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Domain-separated SHA-256 of raw bytes: `SHA-256(ASCII(tag) || 0x00 || bytes)`.
 *
 * @param domain - one of {@link HashDomain}
 * @param bytes - the message
 * @returns 64 lowercase hex characters
 */
export function hashBytes(domain: HashDomainTag, bytes: Uint8Array): HexDigest {
  return createHash('sha256')
    .update(domain, 'latin1')
    .update(new Uint8Array([0]))
    .update(bytes)
    .digest('hex');
}

/**
 * Domain-separated SHA-256 of the RFC 8785 canonical form of `value`.
 *
 * @throws {CanonicalizationError} when `value` is not exactly representable as JSON
 */
export function hashCanonical(domain: HashDomainTag, value: unknown): HexDigest {
  return hashBytes(domain, canonicalBytes(value));
}
