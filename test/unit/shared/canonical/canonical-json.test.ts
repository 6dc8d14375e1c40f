import canonicalizeJcs from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertCanonicalizable } from '../../../../shared/canonical/assert-canonicalizable';
import { canonicalBytes, canonicalJson, MAX_JSON_DEPTH } from '../../../../shared/canonical/canonical-json';
import { CanonicalizationError } from '../../../../shared/errors';

/** IEEE-754 binary64 given as 16 hex digits, as RFC 8785 Appendix B lists them. */
const fromIeeeHex = (hex: string): number => Buffer.from(hex, 'hex').readDoubleBE(0);

// RFC 8785 Appendix B, "Number Serialization Samples" (typed in from the RFC text).
const appendixB: readonly (readonly [hex: string, expected: string])[] = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'], // minus zero
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

describe('RFC 8785 Appendix B number serialization', () => {
  it.each(appendixB)('RFC 8785 Appendix B: %s serializes as %s in the canonicalize library', (hex, expected) => {
    expect(canonicalizeJcs(fromIeeeHex(hex))).toBe(expected);
  });

  it.each(
    appendixB.filter(([hex]) => {
      const n = fromIeeeHex(hex);
      return !Number.isInteger(n) || Number.isSafeInteger(n);
    }),
  )('RFC 8785 Appendix B: canonicalJson gives %s → %s', (hex, expected) => {
    expect(canonicalJson(fromIeeeHex(hex))).toBe(expected);
    expect(canonicalJson([fromIeeeHex(hex)])).toBe(`[${expected}]`);
  });

  it.each(
    appendixB.filter(([hex]) => {
      const n = fromIeeeHex(hex);
      return Number.isInteger(n) && !Number.isSafeInteger(n);
    }),
  )('Reseal policy: Appendix B value %s (%s) is an integer beyond ±(2^53 − 1) and is refused', (hex) => {
    expect(() => canonicalJson({ n: fromIeeeHex(hex) })).toThrow(CanonicalizationError);
    expect(() => canonicalJson({ n: fromIeeeHex(hex) })).toThrow(/at \/n: integer .* beyond/);
  });

  it('RFC 8785 Appendix B: NaN (7fffffffffffffff) and Infinity (7ff0000000000000) are invalid', () => {
    expect(() => canonicalJson(fromIeeeHex('7fffffffffffffff'))).toThrow(/not finite/);
    expect(() => canonicalJson(fromIeeeHex('7ff0000000000000'))).toThrow(/not finite/);
    expect(() => canonicalJson(Number.NEGATIVE_INFINITY)).toThrow(CanonicalizationError);
  });

  it('RFC 8785 §3.2.2.3: canonicalJson agrees with the library on every finite double that is not an unsafe integer', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        fc.pre(!Number.isInteger(n) || Number.isSafeInteger(n));
        expect(canonicalJson(n)).toBe(canonicalizeJcs(n));
        expect(JSON.parse(canonicalJson(n))).toBe(n === 0 ? 0 : n);
      }),
      { numRuns: 500 },
    );
  });
});

describe('RFC 8785 §3.2.3 sorting and §3.2.4 example', () => {
  it('RFC 8785 §3.2.3: members are sorted by UTF-16 code units', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const text = canonicalJson(input);
    // (Object.keys would list the array-index-like key "1" first, so read the order from the text.)
    const order = [...text.matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`));
    expect(order).toEqual(['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
    expect(text).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('RFC 8785 §3.2.4: the sample object canonicalizes to the RFC output (library), and Reseal refuses its 1E30', () => {
    const raw =
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
      '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}';
    const expected =
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
      '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';
    expect(canonicalizeJcs(JSON.parse(raw))).toBe(expected);
    expect(() => canonicalJson(JSON.parse(raw))).toThrow(/at \/numbers\/1/);
    const safe = JSON.parse(raw.replace('1E30', '1E3'));
    expect(canonicalJson(safe)).toBe(expected.replace('1e+30', '1000'));
  });

  it('RFC 8785 §3.2.2.2: strings use minimal escapes; control characters as lowercase \\u00xx', () => {
    expect(canonicalJson('\u0000\u0008\t\n\f\r\u001f"\\/\u007f\u2028')).toBe(
      '"\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\/\u007f\u2028"',
    );
  });

  it('canonicalBytes is the UTF-8 encoding of canonicalJson', () => {
    expect(Buffer.from(canonicalBytes({ b: '\u00e9', a: 1 })).toString('hex')).toBe(
      Buffer.from('{"a":1,"b":"\u00e9"}', 'utf8').toString('hex'),
    );
  });
});

describe('Reseal refusals (values RFC 8785 cannot carry exactly)', () => {
  const refuses = (value: unknown, path: string, why: RegExp) => {
    let caught: unknown;
    try {
      assertCanonicalizable(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CanonicalizationError);
    expect((caught as CanonicalizationError).path).toBe(path);
    expect((caught as CanonicalizationError).name).toBe('CanonicalizationError');
    expect((caught as Error).message).toMatch(why);
  };

  it('refuses NaN and ±Infinity, naming the path', () => {
    refuses({ a: [1, Number.NaN] }, '/a/1', /not finite/);
    refuses({ a: Number.POSITIVE_INFINITY }, '/a', /not finite/);
    refuses([Number.NEGATIVE_INFINITY], '/0', /not finite/);
  });

  it('refuses integers beyond ±(2^53 − 1) and accepts the bounds', () => {
    refuses({ n: 2 ** 53 }, '/n', /beyond/);
    refuses({ n: -(2 ** 53) }, '/n', /beyond/);
    expect(canonicalJson([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])).toBe(
      '[9007199254740991,-9007199254740991]',
    );
  });

  it('drops the sign of -0 as RFC 8785 requires (not refused)', () => {
    expect(canonicalJson({ z: -0 })).toBe('{"z":0}');
  });

  it('refuses lone surrogates in values and in keys', () => {
    refuses({ s: 'a\ud800' }, '/s', /lone UTF-16 surrogate/);
    refuses({ 'k\udfff': 1 }, '/k\udfff', /lone UTF-16 surrogate/);
    expect(canonicalJson('\ud83d\ude00')).toBe('"\ud83d\ude00"');
  });

  it('refuses cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    refuses(cyclic, '/self', /circular/);
    const arr: unknown[] = [];
    arr.push(arr);
    refuses(arr, '/0', /circular/);
  });

  it('accepts a shared (non-cyclic) sub-object referenced twice', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('refuses class instances, Date and Map', () => {
    class Point {
      x = 1;
    }
    refuses({ p: new Point() }, '/p', /plain objects/);
    refuses(new Date(0), '', /plain objects/);
    refuses({ m: new Map() }, '/m', /plain objects/);
    expect(canonicalJson(Object.assign(Object.create(null), { a: 1 }))).toBe('{"a":1}');
  });

  it('refuses undefined, functions, symbols and bigint', () => {
    refuses({ u: undefined }, '/u', /undefined is not a JSON value/);
    refuses([() => 1], '/0', /function/);
    refuses(Symbol('s'), '', /symbol/);
    refuses({ b: 1n }, '/b', /bigint/);
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH}`, () => {
    let deep: unknown = 0;
    for (let i = 0; i <= MAX_JSON_DEPTH; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(/nested deeper/);
  });

  it('refuses holes in arrays (which JSON.stringify would write as null and the old library as `,,`)', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    refuses([1, , 2], '/1', /array hole is not a JSON value/);
    refuses({ a: new Array(3) }, '/a/0', /array hole/);
    refuses([1, undefined], '/1', /undefined is not a JSON value/);
  });

  it('refuses functions anywhere instead of writing invalid JSON', () => {
    refuses({ a: () => 1 }, '/a', /function is not a JSON value/);
    refuses({ toJSON: () => 'x' }, '/toJSON', /function/);
  });

  it('refuses very deep input with a CanonicalizationError, never a stack overflow', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { d: deep };
    let caught: unknown;
    try {
      canonicalJson(deep);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CanonicalizationError);
    expect((caught as CanonicalizationError).path.split('/')).toHaveLength(MAX_JSON_DEPTH + 1);
    expect((caught as Error).message).toMatch(/nested deeper than 64/);
  });

  it(`accepts exactly ${MAX_JSON_DEPTH} levels`, () => {
    let deep: unknown = 0;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
    expect(canonicalJson(deep)).toBe(`${'['.repeat(MAX_JSON_DEPTH)}0${']'.repeat(MAX_JSON_DEPTH)}`);
  });

  it('reports the first offending value in canonical member order, whatever the insertion order', () => {
    refuses({ b: Number.NaN, a: { y: 1n, x: Symbol('s') } }, '/a/x', /symbol/);
  });

  it('reads each value once, so a getter cannot pass the check with one value and write another', () => {
    let reads = 0;
    const value = {
      get n() {
        reads++;
        return reads === 1 ? 1 : Number.NaN;
      },
    };
    expect(canonicalJson(value)).toBe('{"n":1}');
    expect(reads).toBe(1);
    assertCanonicalizable({ ok: [true, null, 'x'] });
  });

  it('gives up at the first repeated ancestor, not at the depth limit: a cycle costs one lean pass and one careful pass', () => {
    let reads = 0;
    const cyclic: Record<string, unknown> = {
      get list() {
        reads++;
        return [1, 2, 3];
      },
    };
    cyclic.self = cyclic;
    refuses(cyclic, '/self', /circular reference/);
    // Read once by the lean pass (which then met the cycle at depth 1) and once by the careful pass.
    expect(reads).toBe(2);
  });

  it('writes the text from the reads of one pass: a value the lean pass gives up on is read again by the careful one', () => {
    let reads = 0;
    const value = {
      get n() {
        reads++;
        return reads === 1 ? Number.NaN : 1;
      },
    };
    // The lean pass saw NaN and gave up; the careful pass read 1 and wrote (and checked) that.
    expect(canonicalJson(value)).toBe('{"n":1}');
    expect(reads).toBe(2);
  });

  it('escapes ~ and / in error paths (JSON-pointer style)', () => {
    refuses({ 'a/b~c': Number.NaN }, '/a~1b~0c', /not finite/);
  });

  it('keeps __proto__ as an ordinary own key and never normalizes Unicode', () => {
    const parsed = JSON.parse('{"__proto__":1,"a":2}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":1,"a":2}');
    expect(canonicalJson({ 'caf\u00e9': 1 })).not.toBe(canonicalJson({ 'cafe\u0301': 1 }));
  });
});
