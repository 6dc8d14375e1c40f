import type { ReportRefusal } from './report-page';

/** A refusal as `ResealClient.readRefusals` lists it (a rejection or a conflict, with its signature check). */
interface ListedRefusal {
  readonly atMs: number;
  readonly reason: string;
  readonly residualId: string | null;
  readonly signatureVerified?: boolean;
  readonly unreadable?: string;
}

/**
 * The refusals of a lineage for the report: rejections and conflicts, oldest first. An unreadable
 * item never counts as signed; an item whose statement was not checked is `signatureVerified: null`.
 */
export function reportRefusals(
  rejections: readonly ListedRefusal[],
  conflicts: readonly ListedRefusal[],
): ReportRefusal[] {
  const of = (kind: ReportRefusal['kind'], r: ListedRefusal): ReportRefusal => ({
    kind,
    atMs: r.atMs,
    reason: r.reason,
    residualId: r.residualId,
    signatureVerified: r.unreadable ? false : (r.signatureVerified ?? null),
  });
  return [...rejections.map((r) => of('rejection', r)), ...conflicts.map((c) => of('conflict', c))].sort(
    (a, b) => a.atMs - b.atMs,
  );
}
