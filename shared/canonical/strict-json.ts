import { type MemberNode, parse as parseAst, type ValueNode } from '@humanwhocodes/momoa';
import { describeError } from '../describe-error';
import type { InputIssue } from '../errors';
import { StrictJsonError, StrictJsonFailure } from './strict-json-error';

/**
 * Strict JSON text parsing for every untrusted input (queue bodies, CLI files, snapshot lines).
 *
 * Policy: a JSON object whose member names are not unique is refused, never resolved.
 * RFC 8259 §4 only says names SHOULD be unique and leaves the behaviour on duplicates to the
 * parser; `JSON.parse` keeps the last value, other parsers keep the first or fail. The same text
 * would then be read differently by two parties (an auditor's `jq` and the guard, say), and a
 * verdict would come out of ambiguous input. RFC 7493 (I-JSON) §2.3 says names MUST be unique,
 * and RFC 8785 (the canonical form Reseal hashes) is defined over I-JSON, so Reseal refuses
 * exact duplicates here, as it refuses NFC-colliding map keys in the schemas. Names are compared
 * after JSON unescaping, so `"a"` and `"\u0061"` are the same name.
 */

/** Deepest array/object nesting parsed; deeper text is refused before the (recursive) AST parser runs. */
export const MAX_PARSE_DEPTH = 512;

/** Duplicate names reported per document at most. */
const MAX_DUPLICATES_REPORTED = 20;

/**
 * Longest key or path segment an issue shows, characters; a longer one is cut there and its
 * length named. Without it a 10 MB name above 20 repeated ones would be copied into each of the
 * 20 paths: 200 MB of refusal from 10 MB of text.
 */
const MAX_SHOWN_NAME_CHARS = 100;

/**
 * Parses untrusted JSON text, refusing duplicate member names anywhere in the document.
 *
 * One linear scan of the text refuses excessive nesting and counts the member names; when
 * `JSON.parse(text)` holds as many own keys as that, no object repeats a name and the value is
 * returned (the common case: about 1.4× `JSON.parse` alone on an 85 kB seal request, against 9×
 * for the AST path). Otherwise (a repeated name, or nesting deeper than {@link MAX_PARSE_DEPTH}
 * when a caller lifted the limit), or when `JSON.parse` refuses the text, the text is parsed
 * to an AST with `@humanwhocodes/momoa` (mode `json`), which locates every repeated name and
 * syntax error for the message. Either way the value is `JSON.parse`'s, so numbers, strings
 * (incl. escapes and lone surrogates) and `__proto__` keys come out exactly as it gives them.
 *
 * @param text - the JSON text (a leading BOM is a syntax error, as for `JSON.parse`)
 * @param what - what the text holds, for messages (e.g. `"residual write request"`)
 * @param options.maxDepth - nesting limit, default {@link MAX_PARSE_DEPTH} (tests only)
 * @returns exactly what `JSON.parse(text)` returns
 * @throws {StrictJsonError} `SYNTAX` (issue message ends with `at line L column C`),
 *   `DUPLICATE_KEY` (one issue per repeated name, at its dotted path such as
 *   `variablesUsed.1.name`, message naming the key escaped and both positions), or `TOO_DEEP`
 */
export function parseStrictJson(text: string, what: string, options: { maxDepth?: number } = {}): unknown {
  const scan = scanText(text, what, options.maxDepth ?? MAX_PARSE_DEPTH);
  // The AST parser copes with MAX_PARSE_DEPTH; deeper texts (limit lifted) keep its own outcome.
  if (scan.deepest <= MAX_PARSE_DEPTH) {
    let value: unknown;
    let parsed = false;
    try {
      value = JSON.parse(text);
      parsed = true;
    } catch {
      // Invalid JSON: the AST path below reports it as it always has.
    }
    // Every name the text holds became an own key: no object repeats one.
    if (parsed && memberCount(value) === scan.names) return value;
  }
  let body: ValueNode;
  try {
    body = parseAst(text, { mode: 'json' }).body;
  } catch (error) {
    throw astError(error, what);
  }
  const duplicates = findDuplicates(body);
  if (duplicates.length > 0) throw new StrictJsonError(what, StrictJsonFailure.DUPLICATE_KEY, duplicates);
  try {
    return JSON.parse(text);
  } catch (error) {
    // momoa accepts a few texts JSON.parse refuses (e.g. a raw control character in a string).
    throw syntaxError(what, describeNativeError(error, text), { cause: error });
  }
}

function syntaxError(what: string, message: string, options?: ErrorOptions): StrictJsonError {
  return new StrictJsonError(what, StrictJsonFailure.SYNTAX, [{ path: '', message }], options);
}

/** What {@link scanText} found. */
interface Scan {
  /** Deepest nesting of arrays/objects reached. */
  readonly deepest: number;
  /**
   * How many member names the objects of the text hold, repeats included. Exact for valid JSON;
   * for other texts it means nothing, as `JSON.parse` then refuses the text anyway.
   */
  readonly names: number;
}

/**
 * One linear scan (strings skipped with `indexOf`, brackets inside them ignored): refuses nesting
 * beyond `maxDepth` at the first bracket past it, and counts the member names (a string right
 * after `{`, or after a `,` inside an object). `JSON.parse` keeps one own key per distinct name
 * of an object, so the text repeats a name exactly when the parsed value has fewer own keys than
 * this count ({@link memberCount}): no name is sliced or remembered here.
 */
function scanText(text: string, what: string, maxDepth: number): Scan {
  let depth = 0;
  let deepest = 0;
  let names = 0;
  let expectName = false;
  /** Per open container (index depth − 1): whether it is an object. */
  const isObject: boolean[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = closingQuote(text, i);
      if (end < 0) break; // unterminated string: not JSON
      if (expectName) names++;
      expectName = false;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) {
        const message = `nested deeper than ${maxDepth} arrays/objects at ${lineColumn(text, i)}`;
        throw new StrictJsonError(what, StrictJsonFailure.TOO_DEEP, [{ path: '', message }]);
      }
      if (depth > deepest) deepest = depth;
      expectName = c === 0x7b;
      isObject[depth - 1] = expectName;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      expectName = false;
    } else if (c === 0x2c) {
      expectName = depth > 0 && isObject[depth - 1] === true;
    }
  }
  return { deepest, names };
}

/** Own enumerable keys of every object in a value `JSON.parse` returned, summed (iterative: no recursion). */
function memberCount(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (let i = 0; i < next.length; i++) if (typeof next[i] === 'object') pending.push(next[i]);
      continue;
    }
    const keys = Object.keys(next);
    count += keys.length;
    for (let i = 0; i < keys.length; i++) {
      const member: unknown = (next as Record<string, unknown>)[keys[i] as string];
      if (typeof member === 'object') pending.push(member);
    }
  }
  return count;
}

/** Index of the quote closing the string opened at `start`, or −1 (a quote after an odd run of backslashes is escaped). */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end > 0) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

const TOKEN_TEXT: Readonly<Record<string, string>> = {
  LBrace: "'{'",
  RBrace: "'}'",
  LBracket: "'['",
  RBracket: "']'",
  Colon: "':'",
  Comma: "','",
};

/** Turns a momoa error into a {@link StrictJsonError}; other errors are bugs and propagate. */
function astError(error: unknown, what: string): unknown {
  if (error instanceof RangeError) {
    const message = 'nested too deeply to parse (call stack exhausted)';
    return new StrictJsonError(what, StrictJsonFailure.TOO_DEEP, [{ path: '', message }], { cause: error });
  }
  const located = error as { message?: unknown; line?: unknown; column?: unknown };
  if (!(error instanceof Error) || typeof located.line !== 'number' || typeof located.column !== 'number') {
    return error;
  }
  const reason = error.message
    .replace(/ \(\d+:\d+\)$/, '')
    .replace(/\.$/, '')
    .replace(/^Unexpected token (\w+) found$/, (_, type: string) => `Unexpected ${TOKEN_TEXT[type] ?? type}`)
    .replace(/ found$/, '');
  return syntaxError(what, `${escapeText(reason)} at line ${located.line} column ${located.column}`, {
    cause: error,
  });
}

/** A `JSON.parse` error as one line, with line and column when the engine gives a position. */
function describeNativeError(error: unknown, text: string): string {
  const message = describeError(error).replace(/\s+/g, ' ').trim();
  const position = /at position (\d+)/.exec(message)?.[1];
  const summary = escapeText(message.replace(/ (in JSON )?at position \d+.*$/, '').split(', "')[0] ?? message);
  return position === undefined ? summary.slice(0, 200) : `${summary} at ${lineColumn(text, Number(position))}`;
}

/** `line L column C` (1-based) of a UTF-16 offset; a CR LF or lone CR or LF ends a line. */
function lineColumn(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      start = i + 1;
    }
  }
  return `line ${line} column ${offset - start + 1}`;
}

/** A node to visit, with its path as a parent-linked list (built into text only on a duplicate). */
interface Pending {
  readonly node: ValueNode;
  readonly parent: Pending | null;
  readonly segment: string;
}

/** Every repeated member name, in document order, at its dotted path (iterative: no recursion). */
function findDuplicates(root: ValueNode): InputIssue[] {
  const issues: InputIssue[] = [];
  const stack: Pending[] = [{ node: root, parent: null, segment: '' }];
  while (stack.length > 0 && issues.length < MAX_DUPLICATES_REPORTED) {
    const pending = stack.pop() as Pending;
    const { node } = pending;
    if (node.type === 'Object') {
      const { members } = node;
      const seen = new Set<string>();
      for (const member of members) {
        const name = nameOf(member);
        if (!seen.has(name)) seen.add(name);
        else if (issues.length < MAX_DUPLICATES_REPORTED) {
          const first = members.find((m) => nameOf(m) === name) as MemberNode;
          issues.push(duplicateIssue([...pathOf(pending), name].map(shownName).join('.'), name, first, member));
        }
      }
      for (let i = members.length - 1; i >= 0; i--) {
        const member = members[i] as MemberNode;
        if (isContainer(member.value)) stack.push({ node: member.value, parent: pending, segment: nameOf(member) });
      }
    } else if (node.type === 'Array') {
      const { elements } = node;
      for (let i = elements.length - 1; i >= 0; i--) {
        const value = (elements[i] as (typeof elements)[number]).value;
        if (isContainer(value)) stack.push({ node: value, parent: pending, segment: String(i) });
      }
    }
  }
  return issues;
}

function isContainer(node: ValueNode): boolean {
  return node.type === 'Object' || node.type === 'Array';
}

function nameOf(member: MemberNode): string {
  return member.name.type === 'String' ? member.name.value : member.name.name;
}

/** Path segments from the root (exclusive) down to `pending`. */
function pathOf(pending: Pending): string[] {
  const segments: string[] = [];
  for (let at: Pending | null = pending; at?.parent; at = at.parent) segments.push(at.segment);
  return segments.reverse();
}

function duplicateIssue(path: string, name: string, first: MemberNode, again: MemberNode): InputIssue {
  const was = first.loc.start;
  const now = again.loc.start;
  return {
    path,
    message:
      `duplicate key ${quotedName(name)} (line ${was.line} column ${was.column}, again at line ` +
      `${now.line} column ${now.column}); member names must be unique (RFC 7493 §2.3)`,
  };
}

/** `name`, or its first {@link MAX_SHOWN_NAME_CHARS} characters and its length when it is longer. */
function shownName(name: string): string {
  return name.length <= MAX_SHOWN_NAME_CHARS ? name : `${name.slice(0, MAX_SHOWN_NAME_CHARS)}${cutNote(name)}`;
}

/** {@link quoteKey} of `name`, cut as {@link shownName} cuts it (the note after the closing quote). */
function quotedName(name: string): string {
  return name.length <= MAX_SHOWN_NAME_CHARS
    ? quoteKey(name)
    : `${quoteKey(name.slice(0, MAX_SHOWN_NAME_CHARS))}${cutNote(name)}`;
}

const cutNote = (name: string) => `… (${name.length} characters)`;

/** A key as a JSON string literal, with everything outside printable ASCII `\u`-escaped. */
function quoteKey(key: string): string {
  return escapeText(JSON.stringify(key));
}

/** Replaces every character outside printable ASCII by its `\uXXXX` escape. */
function escapeText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
