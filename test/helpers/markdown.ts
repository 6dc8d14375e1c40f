import { readFileSync } from 'node:fs';

/** A docs/ page's text (`page` relative to docs/, e.g. `canonical-form.md`). */
export function docPage(page: string): string {
  return readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8');
}

/** The text of a section: from its heading line (`## Title`, any level) to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, '') === heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = (/^#+/.exec(lines[start] as string)?.[0] ?? '#').length;
  const end = lines.findIndex(
    (line, i) => i > start && /^#+ /.test(line) && (/^#+/.exec(line)?.[0] ?? '').length <= level,
  );
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/**
 * The body rows of the first Markdown table in `text`, each as its cells (trimmed, `\|` read as
 * `|`), after the header and the `---` separator.
 */
export function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  if (first < 0) throw new Error('no table');
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, line.trimEnd().length - 1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|')),
    );
  }
  return rows;
}

/** The contents of every `code span` in a cell. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
}
