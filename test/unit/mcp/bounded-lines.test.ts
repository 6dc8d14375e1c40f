import { describe, expect, it } from 'vitest';
import { type BoundedLine, BoundedLines } from '../../../mcp/bounded-lines';
import { MAX_MCP_LINE_BYTES } from '../../../mcp/strict-lines';

/** Each line as text, or `OVER_BOUND <head>`. */
const shown = (lines: readonly BoundedLine[]) =>
  lines.map((line) => (line.kind === 'LINE' ? line.bytes.toString('utf8') : `OVER_BOUND ${line.head}`));

describe('BoundedLines: lines cut at a byte bound, newline included', () => {
  it('takes a line of exactly the bound; reports one a byte longer once, then splits the next line as any other', () => {
    const lines = new BoundedLines(8);
    expect(shown(lines.push(Buffer.from('1234567\n')))).toEqual(['1234567\n']);
    expect(shown(lines.push(Buffer.from('12345678\nok\n')))).toEqual(['OVER_BOUND 12345678\n', 'ok\n']);
    expect(shown(lines.end())).toEqual([]);
  });

  it('reports a line as soon as it passes the bound, discards it up to its newline across chunks', () => {
    const lines = new BoundedLines(8);
    expect(shown(lines.push(Buffer.from('abcd')))).toEqual([]);
    expect(lines.bufferedBytes).toBeLessThanOrEqual(8);
    expect(shown(lines.push(Buffer.from('efghij')))).toEqual(['OVER_BOUND abcdefghij']);
    expect(lines.bufferedBytes).toBe(0);
    expect(shown(lines.push(Buffer.from('still the same line')))).toEqual([]);
    expect(shown(lines.push(Buffer.from(' and its end\nnext\nla')))).toEqual(['next\n']);
    expect(shown(lines.end())).toEqual(['la']);
  });

  it('reassembles a line and a character split across chunks; bytes pass as received', () => {
    const lines = new BoundedLines(64);
    const line = Buffer.from('{"t":"café 😀"}\r\n');
    const cut = line.indexOf(Buffer.from('😀')) + 2;
    expect(lines.push(line.subarray(0, cut))).toEqual([]);
    const [whole] = lines.push(line.subarray(cut));
    expect(whole?.kind === 'LINE' && whole.bytes.equals(line)).toBe(true);
    // A byte that is not UTF-8 is passed as the byte, not as U+FFFD's three.
    const [raw] = lines.push(Buffer.from([0x22, 0xff, 0x22, 0x0a]));
    expect(raw?.kind === 'LINE' && raw.bytes.length).toBe(4);
  });

  it('holds at most the bound however the bytes come: one at a time, or a line ten times over it', () => {
    const small = new BoundedLines(1024);
    for (let i = 0; i < 5000; i++) {
      small.push(Buffer.from('x'));
      expect(small.bufferedBytes).toBeLessThanOrEqual(1024);
    }
    expect(shown(small.push(Buffer.from('\n{}\n')))).toEqual(['{}\n']);

    const lines = new BoundedLines(MAX_MCP_LINE_BYTES);
    const chunk = Buffer.alloc(1024 * 1024, 'y');
    const seen: BoundedLine[] = [];
    let most = 0;
    for (let sent = 0; sent < 10 * MAX_MCP_LINE_BYTES; sent += chunk.length) {
      seen.push(...lines.push(chunk));
      most = Math.max(most, lines.bufferedBytes);
    }
    seen.push(...lines.push(Buffer.from('\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n')));
    expect(most).toBeLessThanOrEqual(MAX_MCP_LINE_BYTES);
    expect(seen.map((line) => line.kind)).toEqual(['OVER_BOUND', 'LINE']);
    expect(seen[0]?.kind === 'OVER_BOUND' && seen[0].head).toBe('y'.repeat(1024));
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new BoundedLines(0)).toThrow(RangeError);
    expect(() => new BoundedLines(1.5)).toThrow(RangeError);
  });
});
