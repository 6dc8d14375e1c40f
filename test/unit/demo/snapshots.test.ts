import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSnapshots, parseSnapshots, SnapshotFileError, sliceSnapshots } from '../../../scripts/demo/snapshots';

const FILE = 'examples/runner-images/ubuntu-24.04.jsonl';
const text = readFileSync(FILE, 'utf8');
const firstLine = text.split('\n')[0] as string;

function errorOf(fn: () => unknown): SnapshotFileError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SnapshotFileError) return error;
    throw error;
  }
  throw new Error('expected a SnapshotFileError');
}

describe('snapshot file loading', () => {
  it('loads the 40 real Ubuntu 24.04 snapshots with 171 to 205 keys each, oldest first', async () => {
    const snapshots = await loadSnapshots(FILE);
    expect(snapshots).toHaveLength(40);
    expect(snapshots.map((s) => s.index)).toEqual([...Array(40).keys()]);
    const sizes = snapshots.map((s) => Object.keys(s.env).length);
    expect(Math.min(...sizes)).toBe(171);
    expect(Math.max(...sizes)).toBe(205);
    expect(snapshots[0]?.env['image:version']).toBe(snapshots[0]?.image_version);
  });

  it('names the line number and the field of a bad value', () => {
    const bad = JSON.parse(firstLine);
    bad.env['tool:jq'] = 17;
    const error = errorOf(() => parseSnapshots(`${firstLine}\n${JSON.stringify({ ...bad, index: 1 })}\n`, 'x.jsonl'));
    expect(error.issues[0]?.path).toBe('line 2: env.tool:jq');
    expect(error.message).toContain('x.jsonl');
    expect(error.message).toContain('line 2: env.tool:jq');
  });

  it('names the line of a line that is not JSON, and a missing field', () => {
    const noEnv = JSON.parse(firstLine);
    delete noEnv.env;
    const error = errorOf(() => parseSnapshots(`{oops\n\n${JSON.stringify(noEnv)}`));
    expect(error.issues.map((i) => i.path)).toEqual(['line 1', 'line 3: env']);
    expect(error.issues[0]?.message).toMatch(/^not JSON/);
  });

  it('refuses a line repeating an env key (I-JSON RFC 7493 §2.3), naming line, path and column, never last-wins', () => {
    const line = JSON.stringify(JSON.parse(firstLine));
    const doubled = line.replace('"env":{', '"env":{"image:version":"forged",');
    expect(doubled).not.toBe(line);
    const error = errorOf(() => parseSnapshots(`${line}\n${doubled}`));
    expect(error.issues.map((i) => i.path)).toEqual(['line 2: env.image:version']);
    expect(error.issues[0]?.message).toMatch(/^duplicate key "image:version" \(column \d+, again at column \d+\)/);
  });

  it('gives the column of a syntax error within its line', () => {
    const error = errorOf(() => parseSnapshots(`${firstLine}\n{"series": }`));
    expect(error.issues).toEqual([{ path: 'line 2', message: "not JSON: Unexpected '}' at column 12" }]);
  });

  it('refuses unknown fields, a bad commit, a __proto__ env key and an empty file', () => {
    const extra = { ...JSON.parse(firstLine), extra: 1 };
    expect(errorOf(() => parseSnapshots(JSON.stringify(extra))).issues[0]?.path).toBe('line 1: <line>');
    const commit = JSON.parse(firstLine);
    commit.source.commit = 'HEAD';
    expect(errorOf(() => parseSnapshots(JSON.stringify(commit))).issues[0]?.path).toBe('line 1: source.commit');
    const proto = firstLine.replace('"env": {', '"env": {"__proto__": "x", ');
    expect(errorOf(() => parseSnapshots(proto)).issues[0]?.path).toBe('line 1: env');
    expect(errorOf(() => parseSnapshots('\n\n')).issues[0]?.message).toBe('no snapshots in file');
  });

  it('refuses snapshots out of order and a second series in one file', () => {
    const a = JSON.parse(firstLine);
    const again = JSON.stringify(a);
    expect(errorOf(() => parseSnapshots(`${again}\n${again}`)).issues[0]?.path).toBe('line 2: index');
    const other = JSON.stringify({ ...a, index: 1, series: 'ubuntu-22.04' });
    expect(errorOf(() => parseSnapshots(`${again}\n${other}`)).issues[0]?.path).toBe('line 2: series');
  });
});

describe('slice selection', () => {
  const snapshots = parseSnapshots(text);

  it('keeps every n-th snapshot of the range and always the last one', () => {
    expect(sliceSnapshots(snapshots, { every: 3 }).map((s) => s.index)).toEqual([
      0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39,
    ]);
    expect(sliceSnapshots(snapshots, { from: 5, to: 12, every: 4 }).map((s) => s.index)).toEqual([5, 9, 12]);
    expect(sliceSnapshots(snapshots).length).toBe(40);
  });

  it('refuses a slice of fewer than two snapshots, a reversed range and a bad step', () => {
    expect(() => sliceSnapshots(snapshots, { from: 39 })).toThrow(RangeError);
    expect(() => sliceSnapshots(snapshots, { from: 9, to: 3 })).toThrow(/after/);
    expect(() => sliceSnapshots(snapshots, { every: 0 })).toThrow(/positive integer/);
    expect(() => sliceSnapshots(snapshots, { every: 1.5 })).toThrow(/positive integer/);
  });
});

describe('npm run demo with a hostile snapshot file: refused before anything starts, shown escaped', () => {
  const demo = (args: string[]) =>
    spawnSync(join('node_modules', '.bin', 'tsx'), ['scripts/demo.ts', ...args], { encoding: 'utf8', timeout: 60_000 });

  it('a key holding an ANSI sequence, in a file whose name holds one: exit 2, every line escaped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reseal-demo-'));
    const file = join(dir, 'series-\u001b[31m.jsonl');
    const line = JSON.parse(firstLine) as { env: Record<string, unknown> };
    line.env['tool:\u001b[2Jx'] = 5;
    await writeFile(file, `${JSON.stringify(line)}\n`);
    const result = demo(['--snapshots', file]);
    await rm(dir, { recursive: true });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('series-\\u001b[31m.jsonl is not a valid snapshot file');
    expect(result.stderr).toContain('env.tool:\\u001b[2Jx');
    expect(result.stderr).not.toContain('\u001b');
  });

  it('a missing file and an unknown flag, each holding an ANSI sequence: exit 2, escaped', () => {
    for (const args of [['--snapshots', 'nope-\u001b[31m.jsonl'], ['--x\u001b[31m']]) {
      const result = demo(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('\\u001b[31m');
      expect(result.stderr).not.toContain('\u001b');
    }
  });
});
