import { writtenByText } from '../../client/written-by';
import type { DemoSummary, LineageWritersResult, RecallResult } from './summary';

/** Longest "keys that mattered" cell before it is cut with "+n more". */
const MATTERED_WIDTH = 72;

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function padStart(text: string, width: number): string {
  return text.length >= width ? text : ' '.repeat(width - text.length) + text;
}

/** A list cut to `width` characters, ending in `+n more` when cut. */
export function fitList(items: readonly string[], width: number): string {
  if (items.length === 0) return '-';
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const next = out === '' ? (items[i] as string) : `${out}, ${items[i]}`;
    const rest = items.length - i - 1;
    const suffix = rest > 0 ? ` +${rest} more` : '';
    if (next.length + suffix.length > width && out !== '') return `${out} +${items.length - i} more`;
    out = next;
  }
  return out;
}

function recallRow(r: RecallResult): string[] {
  return [
    r.lineage,
    `#${r.snapshotIndex}`,
    r.imageVersion,
    r.recalledSeq === null ? '-' : `seq ${r.recalledSeq}`,
    r.verdict ?? `REFUSED (${r.verification ?? 'no record'})`,
    String(r.driftedKeyCount),
    fitList(r.mattered, MATTERED_WIDTH),
    String(r.kept.length),
    r.reprobed.length === 0
      ? '-'
      : `${r.reprobed.length}${r.resealedSeq === null ? '' : ` → seq ${r.resealedSeq}`}${r.dropped.length > 0 ? ` (dropped ${r.dropped.join(', ')})` : ''}`,
  ];
}

function table(header: readonly string[], rows: readonly string[][], numeric: ReadonlySet<number>): string[] {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => (row[c] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (numeric.has(c) ? padStart(cell, widths[c] ?? 0) : pad(cell, widths[c] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/**
 * The demo's summary as text: one line per recall (verdict, drifted keys that mattered, claims
 * kept and re-probed), the guard refusal, the tamper check, and totals against a monolithic seal.
 */
export function formatSummary(s: DemoSummary): string {
  const t = s.totals;
  const out: string[] = [];
  out.push(
    `Reseal demo — ${s.series}: ${s.snapshots.count} snapshots, #${s.snapshots.firstIndex} (${s.snapshots.firstDate.slice(0, 10)}) → #${s.snapshots.lastIndex} (${s.snapshots.lastDate.slice(0, 10)}), endpoint ${s.endpoint}`,
  );
  out.push('');
  out.push('Lineages (written at the first snapshot, recalled through EventBridge at every snapshot):');
  for (const l of s.lineages)
    out.push(`  ${pad(l.lineage, 18)} ${l.lineageId}: ${l.claims} claims, ${l.records} records sealed`);
  out.push('');
  out.push('Recalls:');
  const header = [
    'lineage',
    'snap',
    'image',
    'record',
    'verdict',
    'drifted',
    'keys that mattered',
    'kept',
    're-probed',
  ];
  for (const line of table(header, s.recalls.map(recallRow), new Set([5, 7]))) out.push(`  ${line}`);
  out.push('');
  const rw = s.refusedWrite;
  out.push(
    `Guard: write ${rw.residualId} with inherited ${rw.variableName} (not re-probed) → ${rw.stage} ${rw.reason}` +
      ` [${rw.rejectedVariables.map((v) => `${v.name}: ${v.reason}`).join('; ')}]; head ${rw.headUnchanged ? 'unchanged' : 'MOVED'}`,
  );
  for (const cw of s.crossWrites) {
    out.push(
      `Writers: ${cw.by}'s agent signs a write into ${cw.into}'s lineage (its sessionId, epoch 99) → ` +
        `${cw.clientRefused ? 'its client refuses to send it; sent anyway, ' : ''}${cw.stage} ${cw.reason}, ` +
        `${cw.signed ? 'signed' : 'recorded unsigned (an untrusted refusal: no Sign spent, nothing to act on)'}; head ${cw.headUnchanged ? 'unchanged' : 'MOVED'}`,
    );
  }
  const tp = s.tamper;
  out.push(
    `Tamper: ${tp.edited} of ${tp.lineageId} seq ${tp.seq} edited in the table → recall ${tp.outcome}, verification ${tp.verification ?? '-'}` +
      (tp.firstFailure ? ` at seq ${tp.firstFailure.seq} (${tp.firstFailure.reason})` : ''),
  );
  out.push(
    `Proofs: ${s.provenRecalls} of ${s.recalls.length} recalls proven by the client (RFC 9162 inclusion in the lineage's tree, vouched for by the verifiable index under the deployment checkpoint, or by a signed lineage checkpoint), consistent with what it kept`,
  );
  const rc = s.receipt;
  out.push(
    `Receipt: seq ${rc.seq} of ${rc.lineageId} (format ${rc.formatVersion}) checked offline with the tlog-policy alone → ${rc.verdict}` +
      (rc.checkpointSize === null
        ? ` (${rc.reason})`
        : rc.formatVersion === 2
          ? ` (in the lineage head the index holds, under deployment checkpoint ${rc.checkpointSize})`
          : ` (leaf ${rc.seq} of a signed checkpoint of ${rc.checkpointSize} records)`),
  );
  const fr = s.freshness;
  if (fr) {
    out.push(
      `Freshness: ${fr.proven} of ${Object.keys(fr.states).length} lineages' final recalls PROVEN under deployment checkpoint ${fr.checkpointSize ?? '-'}` +
        ` (${fr.witnessing}${fr.witnessing === 'UNWITNESSED' ? ': the log key alone, so a rollback of one lineage shows, of the whole table only with a witness' : ''})`,
    );
  }
  const rb = s.rollback;
  if (rb) {
    out.push(
      `Rollback: a table writer put ${rb.lineage}'s head, records and markers back from seq ${rb.headSeq} to the genuine state the sealer stored at seq ${rb.rolledBackToSeq} (deployment log intact)` +
        ` → a successor session with no local state: ${rb.outcome} ${rb.verification ?? '-'} ${rb.freshnessState ?? '-'}` +
        `${rb.outcome === 'REFUSED' ? ', never the rolled-back memory' : ''}${rb.restored ? '; put back' : ''}`,
    );
  }
  out.push('');
  out.push('Who wrote it (each lineage verified through the signed log; from signed fields only):');
  for (const w of s.writers) {
    out.push(`  ${w.lineage} (${w.lineageId}): ${w.verdict}`);
    for (const line of writerLines(w.records)) out.push(`    ${line}`);
  }
  out.push('');
  out.push('Totals:');
  const verdicts = Object.entries(t.byVerdict)
    .map(([verdict, n]) => `${verdict} ${n}`)
    .join(', ');
  out.push(`  recalls               ${t.recalls} (${verdicts}${t.refused > 0 ? `, refused ${t.refused}` : ''})`);
  out.push(`  claims checked        ${t.claimsChecked}: kept ${t.claimsKept}, re-probed ${t.claimsReprobed}`);
  out.push(`  re-seals              ${t.reseals} superseding records`);
  out.push(
    `  monolithic seal       would have invalidated ${t.monolithic.invalidatedRecalls} of ${t.recalls} recalls and re-derived ${t.monolithic.claimsRederived} claims`,
  );
  out.push(
    `  differential triage   re-derived ${t.claimsReprobed} claims; saved ${t.claimsSaved} re-derivations (${percent(t.claimsSaved, t.monolithic.claimsRederived)} of the monolithic cost)`,
  );
  out.push(`  declared absent       ${declaredAbsentLine(s)}`);
  if (rb) {
    out.push(
      `  rollbacks caught      ${rb.outcome === 'REFUSED' && rb.freshnessState === 'NOT_NEWEST' ? 1 : 0} of 1 (a successor with no local state, ${rb.freshnessState ?? 'no freshness'})`,
    );
  }
  out.push('');
  if (s.problems.length > 0) {
    out.push('PROBLEMS:');
    for (const p of s.problems) out.push(`  - ${p}`);
    out.push('');
  }
  out.push(`Done in ${(s.durationMs / 1000).toFixed(1)} s.`);
  return out.join('\n');
}

/**
 * The totals line about keys declared absent: the claims quarantined because a key they rest on
 * the absence of appeared, and where. Without the declaration that drift would have been ambient
 * and the claims kept.
 */
function declaredAbsentLine(s: DemoSummary): string {
  const { recalls, claimsQuarantined } = s.totals.declaredAbsent;
  if (recalls === 0) return 'no key a claim declared absent appeared';
  const where = s.recalls
    .filter((r) => r.absentAppeared.length > 0)
    .map(
      (r) => `${r.lineage} #${r.snapshotIndex}: ${r.quarantinedOnAbsence.join(', ')} on ${r.absentAppeared.join(', ')}`,
    );
  return (
    `${claimsQuarantined} claim${claimsQuarantined === 1 ? '' : 's'} quarantined at ${recalls} recall${recalls === 1 ? '' : 's'} ` +
    `when keys they declared absent appeared (${where.join('; ')})`
  );
}

/** One line per run of consecutive records that the same writer wrote the same way: `seq 1–12: <writer>`. */
export function writerLines(records: LineageWritersResult['records']): string[] {
  const runs: { from: string; to: string; text: string }[] = [];
  for (const r of records) {
    const seq = String(r.seq ?? '?');
    const text = writtenByText(r.writtenBy);
    const run = runs.at(-1);
    if (run && run.text === text) run.to = seq;
    else runs.push({ from: seq, to: seq, text });
  }
  return runs.map((run) => `seq ${run.from === run.to ? run.from : `${run.from}–${run.to}`}: ${run.text}`);
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${Math.round((100 * part) / whole)}%`;
}
