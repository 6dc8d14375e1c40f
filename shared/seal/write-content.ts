import { boundaryDigest } from '../authorship/boundary-digest';
import { policyDigest } from '../authorship/lineage-policy';
import { canonicalJson } from '../canonical/canonical-json';
import { ResealError } from '../errors';
import { manifestDigest } from '../triage/manifest-digest';
import type { ResidualWriteRequest } from '../write/write-request';
import { payloadHash } from './payload-hash';
import type { SealedRecord } from './sealed-record';
import { variablesDigest } from './variables-digest';

/** The fields of a residual write that its sealed record binds (see {@link differingWriteContent}). */
export type WriteContent = Pick<
  ResidualWriteRequest,
  | 'payload'
  | 'manifest'
  | 'variablesUsed'
  | 'generationEpoch'
  | 'sessionId'
  | 'authority'
  | 'supersedes'
  | 'boundary'
  | 'declaredImmutableConstants'
  | 'writer'
  | 'policy'
>;

/** The sealed record's parts {@link differingWriteContent} compares with: its header and its format-2 writer and policy. */
export type SealedContent = Pick<SealedRecord, 'header' | 'writer' | 'policy'>;

/** The fields {@link differingWriteContent} compares, in the order it names them. */
export const WRITE_CONTENT_FIELDS = [
  'payloadHash',
  'manifestDigest',
  'variablesDigest',
  'generationEpoch',
  'sessionId',
  'authority',
  'supersedes',
  'boundaryDigest',
  'writer',
  'policy',
] as const;

/**
 * The fields, derived from a write request, that differ from a sealed record: whether that
 * record is this write's seal or another write's under the same residual id.
 * Compared: every header field the sealer seals from the request (`payloadHash` of the payload,
 * `manifestDigest`, `variablesDigest` of `variablesUsed`, `generationEpoch`, `sessionId`,
 * `authority`, `supersedes`, `boundaryDigest` of the boundary and declared constants), the
 * writer's key (`keyId` and `publicKey` of the record's `writer`; absent on a format-1 record, so
 * it differs) and the policy the write sets (its digest against the record's own `policy`, `null`
 * on both sides for a write that sets none). So the same residual id written by another writer
 * or under another policy is another write (docs/authorship.md, "Signed writes"), while the same
 * writer re-signing the same content (another `signedAtMs`, another signature) is the same write.
 * Not compared: the residual id and lineage (the caller looked the record up by them), the seq,
 * `parentRecordHash`, `sealedAtMs` and `keyId` (the sealer's, not the request's), the writer's
 * `signedAtMs`, `signature` and `senderId` (see above), and `verdictDigest`, which a safe verdict
 * derives from the residual id, lineage, session, epoch and authority alone.
 * The caller passes a record whose integrity it checked (`writerDigest` binds `writer`, and a
 * record's own `policy` hashes to its `policyDigest`).
 * A digest the core refuses to compute (e.g. a manifest it cannot hash) counts as differing.
 */
export function differingWriteContent(write: WriteContent, record: SealedContent): string[] {
  const { header } = record;
  const sides: Record<(typeof WRITE_CONTENT_FIELDS)[number], () => [unknown, unknown]> = {
    payloadHash: () => [payloadHash(write.payload), header.payloadHash],
    manifestDigest: () => [manifestDigest(write.manifest), header.manifestDigest],
    variablesDigest: () => [variablesDigest(write.variablesUsed), header.variablesDigest],
    generationEpoch: () => [write.generationEpoch, header.generationEpoch],
    sessionId: () => [write.sessionId, header.sessionId],
    authority: () => [write.authority, header.authority],
    supersedes: () => [write.supersedes ?? null, header.supersedes ?? null],
    boundaryDigest: () => [
      boundaryDigest(write.boundary, write.declaredImmutableConstants),
      header.boundaryDigest ?? null,
    ],
    writer: () => [writerKeyOf(write.writer), writerKeyOf(record.writer)],
    policy: () => [
      write.policy ? policyDigest(write.policy) : null,
      record.policy ? (header.policyDigest ?? null) : null,
    ],
  };
  const differing: string[] = [];
  for (const field of WRITE_CONTENT_FIELDS) {
    let same: boolean;
    try {
      const [derived, sealed] = sides[field]();
      same = canonicalJson(derived) === canonicalJson(sealed ?? null);
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
      same = false; // a digest the core refuses to compute cannot be the sealed one
    }
    if (!same) differing.push(field);
  }
  return differing;
}

/** The signing key of a writer block, or `null` (a format-1 record has no writer). */
const writerKeyOf = (writer: { keyId: string; publicKey: string } | undefined) =>
  writer ? { keyId: writer.keyId, publicKey: writer.publicKey } : null;
