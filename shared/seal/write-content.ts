import { canonicalJson } from '../canonical/canonical-json';
import { ResealError } from '../errors';
import { manifestDigest } from '../triage/manifest-digest';
import type { ResidualWriteRequest } from '../write/write-request';
import { payloadHash, type RecordHeader, variablesDigest } from './record-header';

/** The fields of a residual write that its sealed record's header binds (see {@link differingWriteContent}). */
export type WriteContent = Pick<
  ResidualWriteRequest,
  'payload' | 'manifest' | 'variablesUsed' | 'generationEpoch' | 'sessionId' | 'authority' | 'supersedes'
>;

/** The header fields {@link differingWriteContent} compares, in the order it names them. */
export const WRITE_CONTENT_FIELDS = [
  'payloadHash',
  'manifestDigest',
  'variablesDigest',
  'generationEpoch',
  'sessionId',
  'authority',
  'supersedes',
] as const;

/**
 * The header fields, derived from a write request, that differ from a sealed record's header:
 * whether that record is this write's seal or another write's under the same residual id.
 * Compared: every header field the sealer seals from the request (`payloadHash` of the payload,
 * `manifestDigest`, `variablesDigest` of `variablesUsed`, `generationEpoch`, `sessionId`,
 * `authority`, `supersedes`). Not compared: the residual id and lineage (the caller looked the
 * record up by them), the seq, `parentRecordHash`, `sealedAtMs` and `keyId` (the sealer's, not the
 * request's), and `verdictDigest`, which a safe verdict derives from the residual id, lineage,
 * session, epoch and authority alone, so it cannot differ when those agree.
 * A digest the core refuses to compute (e.g. a manifest it cannot hash) counts as differing.
 */
export function differingWriteContent(write: WriteContent, header: RecordHeader): string[] {
  const derived: Record<(typeof WRITE_CONTENT_FIELDS)[number], () => unknown> = {
    payloadHash: () => payloadHash(write.payload),
    manifestDigest: () => manifestDigest(write.manifest),
    variablesDigest: () => variablesDigest(write.variablesUsed),
    generationEpoch: () => write.generationEpoch,
    sessionId: () => write.sessionId,
    authority: () => write.authority,
    supersedes: () => write.supersedes ?? null,
  };
  const differing: string[] = [];
  for (const field of WRITE_CONTENT_FIELDS) {
    let same: boolean;
    try {
      same = canonicalJson(derived[field]()) === canonicalJson(header[field] ?? null);
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
      same = false; // a digest the core refuses to compute cannot be the sealed one
    }
    if (!same) differing.push(field);
  }
  return differing;
}
