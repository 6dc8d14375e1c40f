import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { hashBytes } from '../../../../shared/canonical/hash-bytes';
import { hashCanonical } from '../../../../shared/canonical/hash-canonical';
import { HashDomain } from '../../../../shared/canonical/hash-domain';

interface CanonicalVector {
  name: string;
  input: unknown;
  canonical: string;
  hashes: Record<string, string>;
}
const file = JSON.parse(readFileSync(new URL('../../../vectors/canonical.json', import.meta.url), 'utf8')) as {
  formatVersion: number;
  vectors: CanonicalVector[];
};

describe('test/vectors/canonical.json', () => {
  it('covers every hash domain in every vector', () => {
    expect(file.formatVersion).toBe(1);
    expect(file.vectors.length).toBeGreaterThanOrEqual(5);
    for (const vector of file.vectors)
      expect(Object.keys(vector.hashes).sort()).toEqual(Object.values(HashDomain).sort());
  });

  it.each(file.vectors.map((v) => [v.name, v] as const))(
    'vector "%s": input → canonical text → hash per domain',
    (_, vector) => {
      expect(canonicalJson(vector.input)).toBe(vector.canonical);
      for (const [tag, digest] of Object.entries(vector.hashes)) {
        const domain = tag as (typeof HashDomain)[keyof typeof HashDomain];
        expect(hashCanonical(domain, vector.input)).toBe(digest);
        expect(hashBytes(domain, new TextEncoder().encode(vector.canonical))).toBe(digest);
      }
    },
  );
});
