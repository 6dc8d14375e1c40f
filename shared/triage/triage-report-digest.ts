import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';
import { parseInput } from '../schemas/parse';
import { DeltaIsolationReportSchema } from './delta-isolation-report';

/**
 * Digest of a triage report: `SHA-256("reseal/v1/triage-report" || 0x00 || JCS(report))`.
 * Stable across runs and across the order keys arrived in, since every array is sorted.
 *
 * @throws {InvalidInputError} when `report` does not match {@link DeltaIsolationReportSchema}
 */
export function triageReportDigest(report: unknown): HexDigest {
  return hashCanonical(HashDomain.TRIAGE_REPORT, parseInput(DeltaIsolationReportSchema, report, 'triage report'));
}
