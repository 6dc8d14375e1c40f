/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page is driven in a browser: the callbacks passed to page.evaluate run there.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml, reportScriptJson } from '../../../cli/report/report-html';
import { chromiumPath } from '../../helpers/chromium';
import { expectGuarantee } from '../../helpers/guarantees';
import { PLANTED_SCRIPT, reportLineage } from '../../helpers/report-fixtures';
import { TEST_LINEAGE_ID, TEST_NOW_MS } from '../../helpers/seal-factories';
import { TEST_KEY_HEX } from './exports';
import { runCli } from './run-cli';

/** Where the screenshot goes (gitignored). */
const SCREENSHOT = join(process.cwd(), '.test-output', 'report-page.png');

let dir: string;
let html: string;
let exitCode: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-report-'));
  const { records } = await reportLineage();
  const envelope = { formatVersion: 1, lineageId: TEST_LINEAGE_ID, exportedAtMs: TEST_NOW_MS, head: null, records };
  await writeFile(join(dir, 'lineage.json'), JSON.stringify(envelope));
  const result = await runCli(
    ['report', '--export', 'lineage.json', '--local-key-hex', TEST_KEY_HEX, '--out', 'report.html'],
    { cwd: dir },
  );
  exitCode = result.exitCode;
  html = await readFile(join(dir, 'report.html'), 'utf8');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reseal report --export: the page (docs/cli.md, "reseal report")', () => {
  it('exits 20 for a lineage with a tampered record, and writes the page anyway', () => {
    expect(exitCode).toBe(20);
    expect(html.startsWith('<!doctype html>')).toBe(true);
  });

  it('carries a script planted in a record only as escaped text', () => {
    expect(html).not.toContain(PLANTED_SCRIPT);
    expect(html).not.toContain('<script>window.__planted');
    expect(html).toContain(escapeHtml(PLANTED_SCRIPT));
    expect(reportScriptJson({ id: '</script><script>x()</script>' })).toBe(
      '{"id":"\\u003c/script\\u003e\\u003cscript\\u003ex()\\u003c/script\\u003e"}',
    );
  });

  it('needs no network: no external script, style or image', () => {
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
  });
});

describe('reseal report in headless Chromium', () => {
  let browser: Browser;
  // Launching Chromium took over 10 s on a loaded 2-core machine (a CI run failed on the default
  // hook timeout): the launch is bounded by its own generous limit, not by the machine's load.
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('loads with no console error, draws the expected marks, runs no planted script, and is saved as a screenshot', async (context) => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Anything the page tries to fetch is a failure: it must be self-contained.
    await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
    await page.goto(`file://${join(dir, 'report.html')}`);
    await page.waitForFunction(
      () => [...document.querySelectorAll('.chart')].every((c) => c.getAttribute('data-rendered') === 'true'),
      null,
      { timeout: 60_000 },
    );
    // One SVG per chart; marks counted as the items Vega draws in each data mark group.
    const marks = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('.chart')].map((chart) => [
          chart.getAttribute('data-chart'),
          {
            svgs: chart.querySelectorAll('svg').length,
            rules: chart.querySelectorAll('g.mark-rule.role-mark > line').length,
            points: chart.querySelectorAll('g.mark-symbol.role-mark > path').length,
            rects: chart.querySelectorAll('g.mark-rect.role-mark > path').length,
          },
        ]),
      ),
    );
    expect(marks).toEqual({
      timeline: { svgs: 1, rules: 2, points: 4, rects: 0 },
      claims: { svgs: 1, rules: 0, points: 0, rects: 5 },
      drift: { svgs: 1, rules: 0, points: 0, rects: 3 },
    });
    const planted = await page.evaluate(() => (window as { __planted?: number }).__planted);
    const row = page.locator('tr', { hasText: 'window.__planted = 1' });
    const shown =
      (await row.count()) === 1
        ? `${(await row.locator('td').last().textContent())?.trim()}, shown as text`
        : 'not shown';
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'record',
        attack: 'plant a script in residualId',
        reader: 'report (Chromium)',
        expected: 'HASH_MISMATCH, shown as text, not run',
      },
      `${shown}, ${planted === undefined ? 'not run' : 'RUN'}`,
    );
    await mkdir(join(process.cwd(), '.test-output'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(problems).toEqual([]);
  });
});
