import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { parseStrictJson } from '../../shared/canonical/strict-json';
import { StrictJsonError, StrictJsonFailure } from '../../shared/canonical/strict-json-error';
import { type InputIssue, InvalidInputError } from '../../shared/errors';
import { EnvSnapshot } from '../../shared/schemas/env-snapshot';

/**
 * One environment snapshot of a runner-image series (examples/runner-images/README.md,
 * "Record format"): a flat map `section:name` → version string, with where it comes from.
 * Strict: unknown fields are refused, so a file of another shape fails loudly.
 */
export const RunnerSnapshotSchema = z.strictObject({
  series: z.string().min(1),
  index: z.number().int().min(0),
  source: z.strictObject({
    repo: z.string().min(1),
    path: z.string().min(1),
    commit: z.string().regex(/^[0-9a-f]{40}$/, 'expected a 40-hex git commit'),
    date: z.iso.datetime({ offset: true }),
  }),
  image_version: z.string().min(1),
  env: EnvSnapshot.refine((env) => Object.keys(env).length > 0, { message: 'env must not be empty' }),
});

/** A validated snapshot (see {@link RunnerSnapshotSchema}). */
export type RunnerSnapshot = z.infer<typeof RunnerSnapshotSchema>;

/** A bad line of a snapshot file: `issues[i].path` is `line <n>: <field>`. */
export class SnapshotFileError extends InvalidInputError {
  readonly file: string;
  constructor(file: string, issues: readonly InputIssue[]) {
    super(`snapshot file ${file}`, issues);
    this.name = 'SnapshotFileError';
    this.file = file;
  }
}

/**
 * Parses JSON Lines text of snapshots (one object a line, blank lines ignored). Each line is read
 * with `parseStrictJson`, so a repeated key (e.g. one env entry given twice) is refused, not
 * resolved to its last value.
 *
 * Checks each line against {@link RunnerSnapshotSchema}, and the file as a whole: one series,
 * indexes strictly increasing (oldest first), at least one snapshot.
 *
 * @param text - the file's content, UTF-8 decoded
 * @param file - name used in error messages
 * @throws {SnapshotFileError} listing every bad line with its 1-based line number and field,
 *   e.g. `line 7: env.tool:jq: Invalid input: expected string, received number`
 */
export function parseSnapshots(text: string, file = '<input>'): RunnerSnapshot[] {
  const issues: InputIssue[] = [];
  const snapshots: { line: number; snapshot: RunnerSnapshot }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = parseStrictJson(raw, 'snapshot');
    } catch (error) {
      if (!(error instanceof StrictJsonError)) throw error;
      // Positions are within the one line: "line 1 column 17" reads as "column 17".
      const inLine = (message: string) => message.replace(/line 1 column /g, 'column ');
      for (const issue of error.issues) {
        issues.push(
          error.failure === StrictJsonFailure.SYNTAX
            ? { path: `line ${line}`, message: `not JSON: ${inLine(issue.message)}` }
            : { path: `line ${line}: ${issue.path || '<line>'}`, message: inLine(issue.message) },
        );
      }
      return;
    }
    const parsed = RunnerSnapshotSchema.safeParse(json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.map(String).join('.') || '<line>';
        issues.push({ path: `line ${line}: ${field}`, message: issue.message });
      }
      return;
    }
    snapshots.push({ line, snapshot: parsed.data });
  });
  if (issues.length === 0 && snapshots.length === 0) {
    issues.push({ path: '', message: 'no snapshots in file' });
  }
  for (let i = 1; i < snapshots.length && issues.length === 0; i++) {
    const previous = snapshots[i - 1] as (typeof snapshots)[number];
    const current = snapshots[i] as (typeof snapshots)[number];
    if (current.snapshot.series !== previous.snapshot.series) {
      issues.push({
        path: `line ${current.line}: series`,
        message: `series ${JSON.stringify(current.snapshot.series)} differs from ${JSON.stringify(previous.snapshot.series)} on line ${previous.line}`,
      });
    } else if (!(current.snapshot.index > previous.snapshot.index)) {
      issues.push({
        path: `line ${current.line}: index`,
        message: `index ${current.snapshot.index} must be greater than ${previous.snapshot.index} on line ${previous.line} (oldest first)`,
      });
    }
  }
  if (issues.length > 0) throw new SnapshotFileError(file, issues);
  return snapshots.map((s) => s.snapshot);
}

/**
 * Reads and validates a snapshot file (JSON Lines).
 *
 * @throws {SnapshotFileError} for a bad line (see {@link parseSnapshots})
 * @throws {Error} (ENOENT, …) when the file cannot be read
 */
export async function loadSnapshots(path: string): Promise<RunnerSnapshot[]> {
  return parseSnapshots(await readFile(path, 'utf8'), path);
}

/** Which snapshots of a series the demo replays. Bounds are snapshot `index` values, inclusive. */
export interface SliceOptions {
  /** First index to include. @default the first snapshot's */
  readonly from?: number;
  /** Last index to include. @default the last snapshot's */
  readonly to?: number;
  /** Keep every n-th snapshot of the range, counting from the first; the last one is always kept. @default 1 */
  readonly every?: number;
}

/**
 * Selects the snapshots the demo replays: those with `from ≤ index ≤ to`, then every `every`-th
 * of them (the first and the last of the range are always kept, so the full span of drift shows).
 *
 * @throws {RangeError} when `every` is not a positive integer or fewer than two snapshots remain
 *   (a demo needs one to write at and one to recall at)
 */
export function sliceSnapshots(snapshots: readonly RunnerSnapshot[], options: SliceOptions = {}): RunnerSnapshot[] {
  const every = options.every ?? 1;
  if (!Number.isInteger(every) || every < 1) throw new RangeError(`--every must be a positive integer, got ${every}`);
  const from = options.from ?? Number.NEGATIVE_INFINITY;
  const to = options.to ?? Number.POSITIVE_INFINITY;
  if (from > to) throw new RangeError(`--from ${from} is after --to ${to}`);
  const range = snapshots.filter((s) => s.index >= from && s.index <= to);
  const picked = range.filter((_, i) => i % every === 0 || i === range.length - 1);
  if (picked.length < 2) {
    throw new RangeError(
      `the slice holds ${picked.length} snapshot(s); the demo needs at least 2 (one to write at, one to recall at)`,
    );
  }
  return picked;
}
