import { readFileSync } from 'node:fs';
import canonicalizeJcs from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalJson } from '../../../../shared/canonical/canonical-json';

interface ReferenceVector {
  name: string;
  input: string;
  canonicalHex: string;
}
const file = JSON.parse(readFileSync(new URL('../../../vectors/rfc8785.json', import.meta.url), 'utf8')) as {
  vectors: ReferenceVector[];
};

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('test/vectors/rfc8785.json (RFC 8785 reference implementation test data)', () => {
  it('holds the six reference files', () => {
    expect(file.vectors.map((v) => v.name)).toEqual(['arrays', 'french', 'structures', 'unicode', 'values', 'weird']);
  });

  it.each(file.vectors.filter((v) => v.name !== 'values').map((v) => [v.name, v] as const))(
    'vector "%s": canonicalBytes gives the reference bytes',
    (_, vector) => {
      expect(hexOf(canonicalBytes(JSON.parse(vector.input)))).toBe(vector.canonicalHex);
    },
  );

  it('vector "values": byte-identical once its 1E30 (an integer past 2^53, refused by Reseal policy) is 1E3', () => {
    const vector = file.vectors.find((v) => v.name === 'values') as ReferenceVector;
    expect(() => canonicalJson(JSON.parse(vector.input))).toThrow(/at \/numbers\/1: integer 1e\+30 is beyond/);
    expect(hexOf(new TextEncoder().encode(canonicalizeJcs(JSON.parse(vector.input))))).toBe(vector.canonicalHex);
    const expected = Buffer.from(vector.canonicalHex, 'hex').toString('utf8').replace('1e+30', '1000');
    expect(canonicalJson(JSON.parse(vector.input.replace('1E30', '1E3')))).toBe(expected);
  });
});
