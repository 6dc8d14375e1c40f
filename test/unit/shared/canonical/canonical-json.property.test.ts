import canonicalizeJcs from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalJson, MAX_JSON_DEPTH } from '../../../../shared/canonical/canonical-json';
import { hashBytes } from '../../../../shared/canonical/hash-bytes';
import { hashCanonical } from '../../../../shared/canonical/hash-canonical';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { CanonicalizationError } from '../../../../shared/errors';

/**
 * Reseal's serializer against the reference RFC 8785 library (`canonicalize`, by an author of
 * the RFC) on generated JSON values: byte-identical wherever Reseal accepts the value, and a
 * refusal exactly where the value holds an integer beyond ±(2^53 − 1) (Reseal policy).
 */

/** Numbers RFC 8785 §3.2.2.3 formats in every branch: exponents both ways, -0, the extremes. */
const edgeNumbers = [
  0,
  -0,
  1,
  -1,
  0.1,
  4.5,
  0.002,
  1e-6,
  1e-7,
  9.999999999999997e-7,
  1e-27,
  5e-324,
  -5e-324,
  2.2250738585072014e-308,
  333333333.3333333,
  333333333.33333325,
  1424953923781206.2,
  -0.0000033333333333333333,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  // integers beyond ±(2^53 − 1): refused by policy
  2 ** 53,
  1e21,
  1e23,
  9.999999999999997e22,
  295147905179352830000,
  1.7976931348623157e308,
  -1.7976931348623157e308,
];

const numberArb = fc.oneof(
  fc.constantFrom(...edgeNumbers),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc
    .tuple(fc.integer({ min: -324, max: 308 }), fc.double({ min: 1, max: 10, noNaN: true }), fc.boolean())
    .map(([e, m, negative]) => (negative ? -m : m) * 10 ** e)
    .filter(Number.isFinite),
);

/** Characters that exercise every escape rule, plus BMP-high, private-use and astral characters. */
const trickyChar = fc.constantFrom(
  'a',
  'Z',
  '"',
  '\\',
  '/',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u0080',
  '\u00e9',
  'e\u0301',
  '\u2028',
  '\u20ac',
  '\ue000',
  '\ufb33',
  '\uffff',
  '\ud83d\ude00',
  '\u{10ffff}',
  '\u{1d11e}',
);
const stringArb = fc.oneof(
  fc.string({ unit: trickyChar, maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ maxLength: 12 }),
);
// `__proto__` is covered by its own test; an arbitrary dictionary key of that name would set the prototype.
const keyArb = stringArb.filter((key) => key !== '__proto__');

const { json: jsonArb } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', maxDepth: 12 },
    fc.constant(null),
    fc.boolean(),
    numberArb,
    stringArb,
    fc.array(tie('json'), { maxLength: 5 }),
    fc.dictionary(keyArb, tie('json'), { maxKeys: 6 }),
  ),
}));

/** A value nested `depth` containers deep (arrays and objects alternating by `shape`). */
const deepArb = fc
  .record({ depth: fc.integer({ min: 1, max: MAX_JSON_DEPTH }), leaf: jsonArb, shape: fc.array(fc.boolean()) })
  .map(({ depth, leaf, shape }) => {
    let value: unknown = Array.isArray(leaf) || (leaf !== null && typeof leaf === 'object') ? 0 : leaf;
    for (let i = 0; i < depth; i++) value = shape[i % Math.max(shape.length, 1)] ? [value] : { [`k${i}`]: value };
    return value;
  });

function holdsUnsafeInteger(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value);
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(holdsUnsafeInteger);
}

function agreesWithLibrary(value: unknown): void {
  if (holdsUnsafeInteger(value)) {
    expect(() => canonicalJson(value)).toThrow(CanonicalizationError);
    expect(() => canonicalJson(value)).toThrow(/beyond ±\(2\^53 − 1\)/);
    return;
  }
  const reference = canonicalizeJcs(value);
  expect(canonicalJson(value)).toBe(reference);
  expect(Buffer.from(canonicalBytes(value)).equals(Buffer.from(reference as string, 'utf8'))).toBe(true);
}

describe('canonicalJson is byte-identical to the reference RFC 8785 library', () => {
  it('property: any generated JSON value (unicode-heavy strings and keys, every number form)', () => {
    fc.assert(fc.property(jsonArb, agreesWithLibrary), { numRuns: 1_000 });
  });

  it(`property: values nested up to ${MAX_JSON_DEPTH} containers deep`, () => {
    fc.assert(fc.property(deepArb, agreesWithLibrary), { numRuns: 300 });
  });

  it('property: members are sorted by UTF-16 code units, also where that differs from code-point order', () => {
    // U+E000–U+FFFF sort after a surrogate pair's lead unit (U+D800–U+DBFF) in UTF-16, before it by code point.
    const keys = fc.array(fc.constantFrom('\ue000', '\uffff', '\ud83d\ude00', '\u{10000}', 'a', '\u00e9', ''), {
      maxLength: 7,
    });
    fc.assert(
      fc.property(keys, fc.array(stringArb, { minLength: 7, maxLength: 7 }), (names, values) => {
        agreesWithLibrary(Object.fromEntries(names.map((name, i) => [name, values[i] as string])));
      }),
    );
  });

  it('property: objects of every size (insertion-sorted up to 16 members, sorted natively above), in any order', () => {
    const entries = fc.array(fc.tuple(keyArb, fc.oneof(numberArb, stringArb, fc.constant(null))), {
      maxLength: 60,
      size: 'max',
    });
    fc.assert(
      fc.property(entries, fc.boolean(), (pairs, presorted) => {
        const ordered = presorted ? [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : pairs;
        agreesWithLibrary(Object.fromEntries(ordered));
      }),
      { numRuns: 300 },
    );
  });

  it('property: hashCanonical hashes exactly the canonical bytes under the domain layout', () => {
    fc.assert(
      fc.property(jsonArb, fc.constantFrom(...Object.values(HashDomain)), (value, domain) => {
        fc.pre(!holdsUnsafeInteger(value));
        expect(hashCanonical(domain, value)).toBe(hashBytes(domain, canonicalBytes(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('property: a lone surrogate anywhere in a string or key is refused at its path', () => {
    const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
    fc.assert(
      fc.property(stringArb, lone, stringArb, fc.boolean(), (before, surrogate, after, inKey) => {
        const text = `${before.replace(/[\ud800-\udfff]/g, '')}${surrogate}x${after.replace(/[\ud800-\udfff]/g, '')}`;
        fc.pre(text !== '__proto__');
        const value = inKey ? { [text]: 1 } : { s: [text] };
        const path = inKey ? `/${text.replaceAll('~', '~0').replaceAll('/', '~1')}` : '/s/0';
        let caught: unknown;
        try {
          canonicalJson(value);
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(CanonicalizationError);
        expect((caught as CanonicalizationError).path).toBe(path);
        expect((caught as Error).message).toMatch(/lone UTF-16 surrogate/);
      }),
    );
  });
});
