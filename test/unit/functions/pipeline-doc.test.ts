import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFLICT_SK_PREFIX,
  LINEAGE_KEY_PREFIX,
  MANIFEST_KEY_PREFIX,
  RECORD_SK_PREFIX,
  REJECTION_KEY_PREFIX,
  RESIDUAL_SK_PREFIX,
  TRIAGE_REPORT_KEY_PREFIX,
  UNPARSED_LINEAGE,
} from '../../../adapters/lineage-keys';
import {
  MAX_UNPROCESSED_ROUNDS,
  UNPROCESSED_RETRY_BASE_MS,
  UNPROCESSED_RETRY_CAP_MS,
} from '../../../adapters/retry-unprocessed';
import { MetricName } from '../../../functions/common/metric-name';
import { BODY_PREVIEW_BYTES } from '../../../functions/common/rejection-record';
import { MAX_BODY_BYTES } from '../../../functions/guard/guard-service';
import {
  APPEND_RETRY_BASE_MS,
  APPEND_RETRY_CAP_MS,
  MAX_APPEND_ATTEMPTS,
} from '../../../functions/sealer/append-backoff';
import {
  MAX_GUARD_SEND_DELAY_SECONDS,
  SEAL_QUEUE_RETENTION_SECONDS,
} from '../../../functions/sealer/seal-request-check';
import { MAX_RUN_RECORDS, MAX_UNINTEGRATED_SEARCH } from '../../../functions/sealer/seal-run';
import { DEFAULT_MAX_CLOCK_SKEW_SECONDS, DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../../../shared/guard/policy';
import { RecallRequestedDetailSchema } from '../../../shared/pipeline/recall-requested-detail';
import { RefusalCode } from '../../../shared/pipeline/refusal-code';
import { RejectionReason } from '../../../shared/pipeline/rejection-reason';
import { ResidualRejectedDetailSchema } from '../../../shared/pipeline/residual-rejected-detail';
import { ResidualSealedDetailSchema } from '../../../shared/pipeline/residual-sealed-detail';
import { SealRequestSchema } from '../../../shared/pipeline/seal-request';
import { TriageCompletedDetailSchema } from '../../../shared/pipeline/triage-completed-detail';
import { MAX_HEADER_BYTES } from '../../../shared/seal/record-header';
import { codeSpans, docPage, section, tableRows } from '../../helpers/markdown';

// docs/pipeline.md against the code: each claim it makes about names, shapes and numbers is read
// from the page and compared with what the code declares, so the page cannot drift silently.
const page = docPage('pipeline.md');

/** The source text of every file of a function's folder. */
function sourcesOf(fn: string): string {
  const dir = new URL(`../../../functions/${fn}/`, import.meta.url);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => readFileSync(new URL(name, dir), 'utf8'))
    .join('\n');
}

/** The top-level member names of a `{ a, b: {…}, c?|null, d[] }` shape as the page writes them. */
function membersOf(shape: string): string[] {
  const inner = shape.trim().replace(/^\{/, '').replace(/\}$/, '');
  const names: string[] = [];
  let depth = 0;
  let piece = '';
  for (const ch of `${inner},`) {
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    if (ch === ',' && depth === 0) {
      const name = /^\s*(\w+)/.exec(piece)?.[1];
      if (name) names.push(name);
      piece = '';
    } else piece += ch;
  }
  return names;
}

/** The shape the page gives after a bullet's label, e.g. `` - `ResidualSealed`: `{ … }` ``. */
function shapeAfter(label: string): string {
  const line = page.split('\n').find((l) => l.includes(label));
  if (!line) throw new Error(`docs/pipeline.md: no ${label}`);
  const shape = codeSpans(line.slice(line.indexOf(label) + label.length)).find((span) => span.startsWith('{'));
  if (!shape) throw new Error(`docs/pipeline.md: no shape after ${label}`);
  return shape;
}

const keysOf = (schema: { shape: object }) => Object.keys(schema.shape).sort();

describe('docs/pipeline.md, the function table', () => {
  const rows = tableRows(page);
  it.each([
    ['guard', 'guard'],
    ['sealer', 'sealer'],
    ['triage', 'triage'],
  ])('the %s row: every name in its batch processing and core call columns is in functions/%s/', (row, fn) => {
    const cells = rows.find((r) => r[0] === row);
    expect(cells, `a row for ${row}`).toBeDefined();
    const names = [
      ...(cells?.slice(2) ?? [])
        .flatMap(codeSpans)
        .join(' ')
        .matchAll(/[A-Za-z_]\w*/g),
    ].map((m) => m[0]);
    expect(names.length).toBeGreaterThan(1);
    const source = sourcesOf(fn);
    expect(names.filter((name) => !new RegExp(`\\b${name}\\b`).test(source))).toEqual([]);
  });

  it('the sealer uses no Powertools batch processor (its own grouping, as the page says)', () => {
    expect(page).toContain('The sealer does not use Powertools');
    expect(sourcesOf('sealer')).not.toContain('@aws-lambda-powertools/batch');
  });
});

describe('docs/pipeline.md, "Message shapes"', () => {
  it.each([
    ['**seal-requests body** `SealRequest`:', SealRequestSchema],
    ['`ResidualSealed`:', ResidualSealedDetailSchema],
    ['`ResidualRejected`:', ResidualRejectedDetailSchema],
    ['`RecallRequested`:', RecallRequestedDetailSchema],
    ['`TriageCompleted`:', TriageCompletedDetailSchema],
  ])('%s lists exactly the members of its schema', (label, schema) => {
    expect(membersOf(shapeAfter(label)).sort()).toEqual(keysOf(schema));
  });

  it('the rejection reasons and refusal codes listed are exactly the enums', () => {
    const reasons = section(page, 'Message shapes (`shared/pipeline/`, all strict, camelCase JSON)');
    const listed = /`reason` ∈ ([^.]+)\./s.exec(reasons)?.[1] ?? '';
    expect(codeSpans(listed).sort()).toEqual(Object.values(RejectionReason).sort());
    const codes = /refusalCode: ([A-Z_|]+)\|null/.exec(page)?.[1]?.split('|') ?? [];
    expect(codes.sort()).toEqual(Object.values(RefusalCode).sort());
  });
});

describe('docs/pipeline.md, "Logs and metrics"', () => {
  it('the metrics table lists exactly MetricName', () => {
    const rows = tableRows(section(page, 'Logs and metrics'));
    expect(rows.map((r) => codeSpans(r[0] ?? '')[0]).sort()).toEqual(Object.values(MetricName).sort());
  });
});

describe('docs/pipeline.md, the numbers it states', () => {
  const thousands = (n: number) => n.toLocaleString('en-US');
  it.each([
    ['guard body limit', `body > ${thousands(MAX_BODY_BYTES)} bytes`],
    ['records per run', `writes, at most ${MAX_RUN_RECORDS})`],
    ['lost-race backoff', `below ${APPEND_RETRY_BASE_MS} ms, doubling to at most ${APPEND_RETRY_CAP_MS} ms`],
    ['append attempts', `up to ${MAX_APPEND_ATTEMPTS} attempts`],
    ['header limit', `header > ${thousands(MAX_HEADER_BYTES)} bytes`],
    ['guard send delay', `within the\n   ${MAX_GUARD_SEND_DELAY_SECONDS} s before`],
    ['clock skew', `now + ${DEFAULT_MAX_CLOCK_SKEW_SECONDS} s (the guard's clock skew)`],
    ['retention', `now − ${SEAL_QUEUE_RETENTION_SECONDS / 86_400} days (the queue's retention)`],
    ['receipt age', `${DEFAULT_MAX_RECEIPT_AGE_SECONDS} s; the stack's \`maxReceiptAgeSeconds\` sets it`],
    [
      'unprocessed batch backoff',
      `${UNPROCESSED_RETRY_BASE_MS} ms · 2^round up to ${UNPROCESSED_RETRY_CAP_MS / 1000} s) and fail the read or write after ${MAX_UNPROCESSED_ROUNDS} rounds`,
    ],
    ['unintegrated search', `more than ${thousands(MAX_UNINTEGRATED_SEARCH)} records past its indexed head`],
    ['body preview', `\`bodyPreview\` (first ${BODY_PREVIEW_BYTES / 1024} KiB, data)`],
  ])('%s: "%s"', (_what, text) => {
    expect(page.replace(/\n\s*/g, ' ')).toContain(text.replace(/\n\s*/g, ' '));
  });
});

describe('docs/pipeline.md, "Data layout"', () => {
  const layout = section(page, 'Data layout (one table, string keys `pk`, `sk`)');
  const rows = tableRows(layout);
  const keysOf = (item: string) => {
    const row = rows.find((cells) => cells[0] === item);
    if (!row) throw new Error(`docs/pipeline.md: no ${item} row`);
    return codeSpans(`${row[1] ?? ''} ${row[2] ?? ''}`).join(' ');
  };

  it.each([
    ['record', [LINEAGE_KEY_PREFIX, RECORD_SK_PREFIX]],
    ['manifest', [MANIFEST_KEY_PREFIX]],
    ['residual marker', [LINEAGE_KEY_PREFIX, RESIDUAL_SK_PREFIX]],
    ['conflict', [LINEAGE_KEY_PREFIX, CONFLICT_SK_PREFIX]],
    ['rejection', [REJECTION_KEY_PREFIX, UNPARSED_LINEAGE]],
    ['triage report', [TRIAGE_REPORT_KEY_PREFIX]],
  ])('the %s row names the key prefixes adapters/lineage-keys.ts uses', (item, prefixes) => {
    const keys = keysOf(item);
    expect(prefixes.filter((prefix) => !keys.includes(prefix))).toEqual([]);
  });

  it('every repository path the page names exists', () => {
    const paths = [...new Set(codeSpans(page).filter((span) => /^[\w.-]+\/[\w./-]+\.\w+$/.test(span)))];
    expect(paths.length).toBeGreaterThan(10);
    const root = new URL('../../../', import.meta.url);
    expect(paths.filter((path) => !existsSync(new URL(path, root)))).toEqual([]);
  });
});
