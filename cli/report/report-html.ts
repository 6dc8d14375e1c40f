import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { compile, type TopLevelSpec } from 'vega-lite';
import { FreshnessState } from '../../shared/integrator/record-freshness';
import { isoTime } from '../../shared/iso-time';
import { chartSpecs } from '../../shared/report/chart-specs';
import type { LineageReport, ReportPage } from '../../shared/report/report-page';
import { AwaitingIntegrationText } from '../format/awaiting-integration-text';

/** The id of the JSON data block holding the compiled charts. */
const CHART_DATA_ID = 'reseal-report-charts';

// Fixed text, so the page's Content-Security-Policy can allow it (and Vega) by hash and nothing
// else: a script planted in a record is escaped as text, and would not run even if it were not.
const BOOT_SCRIPT = `(function () {
  var charts = JSON.parse(document.getElementById('${CHART_DATA_ID}').textContent);
  charts.forEach(function (chart) {
    var el = document.getElementById(chart.id);
    new vega.View(vega.parse(chart.spec), { renderer: 'svg', container: el, hover: true })
      .runAsync()
      .then(function () { el.setAttribute('data-rendered', 'true'); })
      .catch(function (error) { el.textContent = 'chart failed: ' + error.message; console.error(error); });
  });
})();`;

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{margin-bottom:.2rem}h2{margin-top:2.5rem;border-bottom:1px solid #ddd}.sub{color:#666}
table{border-collapse:collapse;margin:.5rem 0 1rem}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5}.ok{color:#2e7d32;font-weight:600}.bad{color:#c62828;font-weight:600}.awaiting{color:#ef6c00;font-weight:600}
.chart{margin:.5rem 0 1.5rem}code{font-size:13px}`;

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>`, `&` and the line separators are
 * written as `\u` escapes, so no value can close the block or open a tag.
 */
export function reportScriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

let vegaSource: string | undefined;
/** The pinned Vega runtime (vega/build/vega.min.js), read once. */
function vegaRuntime(): string {
  if (vegaSource === undefined) {
    const require = createRequire(import.meta.url);
    const entry = require.resolve('vega');
    vegaSource = readFileSync(join(dirname(entry), 'vega.min.js'), 'utf8');
  }
  return vegaSource;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const verdictClass = (verdict: string) =>
  verdict === 'VERIFIED_INTACT'
    ? 'ok'
    : verdict === 'AWAITING_INTEGRATION' || verdict === AWAITING
      ? 'awaiting'
      : 'bad';
const AWAITING = FreshnessState.SEALED_AWAITING_INTEGRATION;

/**
 * The first seq sealed past the tree head the index holds, or `null`: the size of the tree-head row
 * whose state is `SEALED_AWAITING_INTEGRATION` (the walk is intact up to it; docs/cli.md, "reseal report").
 */
const awaitingFromSeq = (lineage: LineageReport): number | null =>
  lineage.checkpoints.find((c) => c.state === AWAITING && c.size !== null)?.size ?? null;
/** A stored time as the CLI shows one: a forged one reads `(invalid time <ms>)`, never a throw. */
const iso = (ms: number | null) => (ms === null ? '?' : isoTime(ms));

/**
 * The whole report as one self-contained HTML page (docs/cli.md, "reseal report"): the Vega
 * runtime and every chart's compiled spec are inline, so the page needs no network. Charts draw
 * as SVG; every string from the table is escaped, and a Content-Security-Policy runs only the
 * page's own two scripts (Vega evaluates its compiled expressions, hence `'unsafe-eval'`).
 */
export function reportHtml(page: ReportPage): string {
  const charts: { id: string; spec: unknown }[] = [];
  const sections = page.lineages.map((lineage, index) => lineageSection(lineage, index, charts));
  const runtime = vegaRuntime();
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(runtime)} ${sha256(BOOT_SCRIPT)} 'unsafe-eval'`,
    "style-src 'unsafe-inline'",
    'img-src data:',
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(page.title)}</h1>
<p class="sub">${escapeHtml(page.subtitle)}; made ${iso(page.generatedAtMs)}. Every record carries its own
verification verdict; claims and drifted keys are read only from records the client verified.</p>
${sections.join('\n')}
<script type="application/json" id="${CHART_DATA_ID}">${reportScriptJson(charts)}</script>
<script>${runtime}</script>
<script>${BOOT_SCRIPT}</script>
</body>
</html>
`;
}

function lineageSection(lineage: LineageReport, index: number, charts: { id: string; spec: unknown }[]): string {
  const e = escapeHtml;
  const parts: string[] = [];
  // Records past the indexed tree head: awaiting integration, never shown as a tamper verdict.
  const awaiting = awaitingFromSeq(lineage);
  parts.push(
    `<section class="lineage" data-lineage-index="${index}">`,
    `<h2>${e(lineage.lineageId)}</h2>`,
    awaiting === null
      ? `<p>Chain: <span class="${verdictClass(lineage.verdict)}">${e(lineage.verdict)}</span>` +
          (lineage.firstFailure ? `; first failure: ${e(lineage.firstFailure)}` : '') +
          '</p>'
      : `<p>Chain: <span class="awaiting">${e(AwaitingIntegrationText.summary(awaiting))}</span></p>`,
  );
  parts.push(
    '<h3>Checkpoints</h3>',
    lineage.checkpoints.length === 0
      ? '<p>No signed checkpoint was checked.</p>'
      : table(
          ['checkpoint', 'tree size', 'state', 'detail'],
          lineage.checkpoints.map((c) => [
            e(c.label),
            c.size === null ? '-' : String(c.size),
            `<span class="${verdictClass(c.state)}">${e(c.state)}</span>`,
            e(c.detail),
          ]),
        ),
  );
  for (const chart of chartSpecs(lineage)) {
    const id = `chart-${index}-${chart.kind}`;
    charts.push({ id, spec: compile(chart.spec as unknown as TopLevelSpec).spec });
    parts.push(`<h3>${e(chart.title)}</h3>`, `<div class="chart" id="${id}" data-chart="${chart.kind}"></div>`);
  }
  parts.push(
    '<h3>Records</h3>',
    table(
      ['seq', 'epoch', 'residual', 'session', 'sealed at (UTC)', 'supersedes', 'verification'],
      lineage.records.map((r) => [
        r.seq === null ? '?' : String(r.seq),
        r.generationEpoch === null ? '?' : String(r.generationEpoch),
        e(r.residualId ?? '?'),
        e(r.sessionId ?? '?'),
        iso(r.sealedAtMs),
        r.supersedesSeq === null ? '-' : `seq ${r.supersedesSeq}`,
        ((shown) => `<span class="${verdictClass(shown)}">${e(shown)}</span>`)(
          AwaitingIntegrationText.rowVerdict(r.seq, r.verification, awaiting),
        ),
      ]),
    ),
    `<h3>Refusals and conflicts (${lineage.refusals.length})</h3>`,
    lineage.refusals.length === 0
      ? '<p>None.</p>'
      : table(
          ['time (UTC)', 'kind', 'reason', 'residual', 'signature'],
          lineage.refusals.map((r) => [
            iso(r.atMs),
            r.kind,
            e(r.reason),
            e(r.residualId ?? '?'),
            r.signatureVerified === null
              ? 'not checked'
              : r.signatureVerified
                ? '<span class="ok">verified</span>'
                : '<span class="bad">NOT verified: do not trust</span>',
          ]),
        ),
    `<h3>Recalls (${lineage.recalls.length})</h3>`,
    lineage.recalls.length === 0
      ? '<p>None from verified records.</p>'
      : table(
          ['recall', 'verdict', 'retained', 're-probed', 'invalidated', 'drifted keys that mattered'],
          lineage.recalls.map((r) => [
            e(r.label),
            e(r.verdict ?? '-'),
            String(r.claims.filter((c) => c.state === 'retained').length),
            String(r.claims.filter((c) => c.state === 're-probed').length),
            String(r.claims.filter((c) => c.state === 'invalidated').length),
            r.driftedKeys.length === 0 ? '-' : r.driftedKeys.map((k) => `<code>${e(k)}</code>`).join(', '),
          ]),
        ),
    '</section>',
  );
  return parts.join('\n');
}

/** An HTML table; cells are HTML already escaped by the caller. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const th = head.map((h) => `<th>${h}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}
