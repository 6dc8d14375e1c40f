import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PARSE_DEPTH, parseStrictJson } from '../../../../shared/canonical/strict-json';
import { StrictJsonError, StrictJsonFailure } from '../../../../shared/canonical/strict-json-error';
import { InvalidInputError } from '../../../../shared/errors';

/** The error `parseStrictJson` throws for `text`, or fails the test when it returns. */
function refusal(text: string, options?: { maxDepth?: number }): StrictJsonError {
  try {
    parseStrictJson(text, 'test input', options);
  } catch (error) {
    expect(error).toBeInstanceOf(StrictJsonError);
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as StrictJsonError;
  }
  throw new Error(`expected ${JSON.stringify(text.slice(0, 80))} to be refused`);
}

describe('parseStrictJson: duplicate member names (RFC 7493 §2.3, hostile-input policy)', () => {
  it('a name repeated at the root is refused at its path, naming the key and both positions', () => {
    const error = refusal('{"generationEpoch": 7, "generationEpoch": 8}');
    expect(error.failure).toBe(StrictJsonFailure.DUPLICATE_KEY);
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toBe('generationEpoch');
    expect(error.issues[0]?.message).toMatch(
      /^duplicate key "generationEpoch" \(line 1 column 2, again at line 1 column 24\)/,
    );
    expect(error.message).toContain('at generationEpoch: duplicate key');
  });

  it('a name repeated in a nested object is refused at the nested path', () => {
    const error = refusal('{"boundary": {"predecessorEpoch": 1, "x": {}, "predecessorEpoch": 2}}');
    expect(error.issues.map((i) => i.path)).toEqual(['boundary.predecessorEpoch']);
  });

  it('a name repeated inside an array of objects is refused at the element index', () => {
    const text = '{"variablesUsed": [{"name": "a"}, {"name": "b", "value": "v", "name": "c"}]}';
    const error = refusal(text);
    expect(error.issues.map((i) => i.path)).toEqual(['variablesUsed.1.name']);
  });

  it('every duplicate in the document is listed, in document order', () => {
    const error = refusal('{"a": 1, "b": [{"x": 1, "x": 2}], "a": 3, "c": {"y": 1, "y": 1}}');
    expect(error.issues.map((i) => i.path)).toEqual(['a', 'b.0.x', 'c.y']);
  });

  it('__proto__ twice is refused (JSON.parse would silently keep the second own property)', () => {
    const error = refusal('{"__proto__": {"isAdmin": false}, "__proto__": {"isAdmin": true}}');
    expect(error.issues[0]?.path).toBe('__proto__');
  });

  it('__proto__ once is an ordinary own key, exactly as JSON.parse gives it', () => {
    const value = parseStrictJson('{"__proto__": {"a": 1}}', 'test input') as object;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('names are compared after unescaping: "a" and "\\u0061" are the same name', () => {
    expect(refusal('{"a": 1, "\\u0061": 2}').issues[0]?.path).toBe('a');
  });

  it('a duplicate lone-surrogate key is named with the surrogate escaped, in path and message', () => {
    const error = refusal('{"ARCH": "x", "\\udc00": "v", "\\udc00": "w"}');
    expect(error.issues[0]?.path).toBe('\udc00');
    expect(error.issues[0]?.message).toContain('duplicate key "\\udc00"');
    expect(error.message).toContain('at "\\udc00": duplicate key "\\udc00"');
  });

  it('a long name is shown cut to 100 characters with its length, in path and message: a refusal stays small', () => {
    const long = 'k'.repeat(1_000_000);
    const repeats = Array.from({ length: 20 }, (_, i) => `"${long}${i}":1,"${long}${i}":2`).join(',');
    const error = refusal(`{"${long}":{${repeats}}}`);
    expect(error.issues).toHaveLength(20);
    const cut = `${'k'.repeat(100)}… (1000000 characters)`;
    expect(error.issues[0]?.path).toBe(`${cut}.${'k'.repeat(100)}… (1000001 characters)`);
    expect(error.issues[0]?.message).toMatch(/^duplicate key "k{100}"… \(1000001 characters\) \(line 1 column /);
    expect(error.message.length).toBeLessThan(20_000);
  });

  it('NFC and NFD spellings are different names here (the map schemas refuse that collision)', () => {
    expect(parseStrictJson('{"\u00e9": 1, "e\u0301": 2}', 'test input')).toEqual({ '\u00e9': 1, 'e\u0301': 2 });
  });

  it('the same name in sibling objects is not a duplicate', () => {
    expect(parseStrictJson('[{"a": 1}, {"a": 2}]', 'test input')).toEqual([{ a: 1 }, { a: 2 }]);
  });
});

describe('parseStrictJson: syntax errors carry line and column', () => {
  it('an unexpected token is reported with its line and column', () => {
    const error = refusal('{\n  "ARCH": "x86_64",\n  "HOSTNAME": \n}\n');
    expect(error.failure).toBe(StrictJsonFailure.SYNTAX);
    expect(error.issues).toEqual([{ path: '', message: "Unexpected '}' at line 4 column 1" }]);
  });

  it('a trailing comma, trailing text, empty text and a BOM are syntax errors, as for JSON.parse', () => {
    for (const text of ['[1,]', '{"a": 1} x', '', '\ufeff{}', "{'a': 1}", '{"a": 1 /* c */}']) {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(refusal(text).failure).toBe(StrictJsonFailure.SYNTAX);
    }
  });

  it('a raw control character in a string (accepted by the AST parser) is refused, as by JSON.parse', () => {
    const error = refusal('{"a":\n"x\ty"}');
    expect(error.failure).toBe(StrictJsonFailure.SYNTAX);
    expect(error.issues[0]?.message).toBe('Bad control character in string literal at line 2 column 3');
  });

  it('an unterminated string or a bad escape in a name is a syntax error, as before the one-scan fast path', () => {
    for (const text of ['{"a":1,"b', '{"a":"x', '{"\\x":1,"a":2}', '{"\\u12":1}']) {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(refusal(text).failure).toBe(StrictJsonFailure.SYNTAX);
    }
  });

  it('a non-printable unexpected character is shown escaped', () => {
    expect(refusal('\u000b1').issues[0]?.message).toBe("Unexpected character '\\u000b' at line 1 column 1");
  });
});

describe('parseStrictJson: deep nesting never crashes the process', () => {
  it(`nesting deeper than ${MAX_PARSE_DEPTH} is refused as TOO_DEEP before the AST parser runs`, () => {
    const text = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const error = refusal(text);
    expect(error.failure).toBe(StrictJsonFailure.TOO_DEEP);
    expect(error.issues[0]?.message).toBe(`nested deeper than ${MAX_PARSE_DEPTH} arrays/objects at line 1 column 513`);
  });

  it(`nesting of exactly ${MAX_PARSE_DEPTH} is parsed`, () => {
    const text = `${'{"a":['.repeat(MAX_PARSE_DEPTH / 2)}${']}'.repeat(MAX_PARSE_DEPTH / 2)}`;
    expect(parseStrictJson(text, 'test input')).toEqual(JSON.parse(text));
  });

  it('brackets inside strings do not count as nesting', () => {
    const text = JSON.stringify({ s: '['.repeat(10_000), t: '\\"{{{{' });
    expect(parseStrictJson(text, 'test input')).toEqual(JSON.parse(text));
  });

  it("when the AST parser's own recursion overflows (limit lifted), the RangeError becomes TOO_DEEP", () => {
    const text = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const error = refusal(text, { maxDepth: Number.POSITIVE_INFINITY });
    expect(error.failure).toBe(StrictJsonFailure.TOO_DEEP);
    expect(error.cause).toBeInstanceOf(RangeError);
    expect(error.issues[0]?.message).toBe('nested too deeply to parse (call stack exhausted)');
  });
});

describe('parseStrictJson: otherwise exactly JSON.parse', () => {
  const jsonValue = fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 });

  it('property: for any JSON value (unique names), compact or indented, the result equals JSON.parse', () => {
    fc.assert(
      fc.property(jsonValue, fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(parseStrictJson(text, 'test input')).toStrictEqual(JSON.parse(text));
      }),
    );
  });

  it('property: an object repeating any name is refused at that name, whatever the values', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        jsonValue,
        jsonValue,
        fc.dictionary(fc.string({ unit: 'binary' }), jsonValue, { maxKeys: 4 }),
        (name, first, second, others) => {
          const rest = Object.entries(others)
            .filter(([key]) => key !== name)
            .map(([key, v]) => `${JSON.stringify(key)}:${JSON.stringify(v)},`)
            .join('');
          const text = `{${JSON.stringify(name)}:${JSON.stringify(first)},${rest}${JSON.stringify(name)}:${JSON.stringify(second)}}`;
          const error = refusal(text);
          expect(error.failure).toBe(StrictJsonFailure.DUPLICATE_KEY);
          expect(error.issues[0]?.path).toBe(name);
        },
      ),
    );
  });

  it('numbers, escapes and lone surrogates come out exactly as JSON.parse gives them', () => {
    const text = '[1e400, -0, 0.1, 9007199254740993, "\\ud800", "\\u00e9\\n", 1E-7]';
    const value = parseStrictJson(text, 'test input') as unknown[];
    expect(value).toStrictEqual(JSON.parse(text));
    expect(Object.is(value[1], -0)).toBe(true);
    expect(value[0]).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('parseStrictJson: the one-scan fast path misses no repeated name', () => {
  /** A JSON text tree: objects as entry lists, so a generated object may repeat a name. */
  type Tree =
    | { kind: 'leaf'; text: string }
    | { kind: 'array'; items: Tree[] }
    | { kind: 'object'; entries: [string, Tree][] };

  const names = fc.oneof(
    fc.constantFrom(
      'a',
      'b',
      '"',
      '\\',
      '","',
      '\\"',
      '{',
      '[',
      ']}',
      ':',
      ',"a":',
      '\u00e9',
      '\ud83d\ude00',
      '__proto__',
    ),
    fc.string({ unit: 'binary', maxLength: 4 }),
  );
  const leaves = fc.oneof(
    fc.jsonValue({ maxDepth: 0 }).map((v) => JSON.stringify(v)),
    fc.constantFrom('"\\\\"', '"\\""', '"{\\"a\\":1,\\"a\\":2}"', '"[[["', '1e400', '-0'),
  );
  const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', maxDepth: 5 },
      leaves.map((text): Tree => ({ kind: 'leaf', text })),
      fc.array(tie('tree'), { maxLength: 4 }).map((items): Tree => ({ kind: 'array', items })),
      fc.array(fc.tuple(names, tie('tree')), { maxLength: 5 }).map((entries): Tree => ({ kind: 'object', entries })),
    ),
  }));

  /** Writes a tree with the given spacing; names are escaped as `\uXXXX` where `escaped` says so. */
  function write(t: Tree, space: string, escaped: (i: number) => boolean): string {
    if (t.kind === 'leaf') return t.text;
    if (t.kind === 'array')
      return `[${space}${t.items.map((i) => write(i, space, escaped)).join(`,${space}`)}${space}]`;
    const members = t.entries.map(([name, value], i) => {
      const literal = escaped(i)
        ? `"${Array.from({ length: name.length }, (_, k) => `\\u${name.charCodeAt(k).toString(16).padStart(4, '0')}`).join('')}"`
        : JSON.stringify(name);
      return `${literal}${space}:${space}${write(value, space, escaped)}`;
    });
    return `{${space}${members.join(`,${space}`)}${space}}`;
  }

  const repeats = (t: Tree): boolean =>
    t.kind === 'array'
      ? t.items.some(repeats)
      : t.kind === 'object' &&
        (new Set(t.entries.map(([name]) => name)).size < t.entries.length || t.entries.some(([, v]) => repeats(v)));

  it('property: a text is refused as DUPLICATE_KEY exactly when some object repeats a name (escaped or not)', () => {
    fc.assert(
      fc.property(tree, fc.constantFrom('', ' ', '\n\t'), fc.array(fc.boolean()), (t, space, escapes) => {
        const text = write(t, space, (i) => escapes[i % Math.max(escapes.length, 1)] ?? false);
        if (repeats(t)) expect(refusal(text).failure).toBe(StrictJsonFailure.DUPLICATE_KEY);
        else expect(parseStrictJson(text, 'test input')).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 1_000 },
    );
  });
});
