import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { RequestViolationReason } from '../../../../shared/guard/request-violation';
import { VariableRejectionReason } from '../../../../shared/guard/variable-rejection';
import { valueDigest } from '../../../../shared/write/value-digest';

interface Expected {
  isSafe: boolean;
  rejectedVariables: { name: string; reason: string }[];
  requestViolations: { field: string; reason: string }[];
  verdictPreimage: string;
  verdictDigest: string;
}
interface Vectors {
  valueDigests: { value: string; digest: string }[];
  cases: { name: string; request: unknown; policy: never; expected: Expected }[];
  invalid: { name: string; request: unknown; policy: never; expectedIssuePath: string }[];
}

// Read as text and JSON.parse (not a JSON import) so a "__proto__" key stays an own property.
const vectors: Vectors = JSON.parse(readFileSync(new URL('../../../vectors/guard.json', import.meta.url), 'utf8'));
const byName = (name: string) => {
  const found = vectors.cases.find((c) => c.name === name);
  if (!found) throw new Error(`no vector ${name}`);
  return found;
};

/** SHA-256(ASCII(tag) || 0x00 || UTF-8(text)), computed without the project's hashing code. */
const sha256Tagged = (tag: string, text: string) =>
  createHash('sha256')
    .update(Buffer.concat([Buffer.from(tag, 'ascii'), Buffer.from([0x00]), Buffer.from(text, 'utf8')]))
    .digest('hex');

describe('stale-state guard: committed vectors (test/vectors/guard.json)', () => {
  it('has vectors for every rejection and violation reason', () => {
    const rejected = new Set(vectors.cases.flatMap((c) => c.expected.rejectedVariables.map((r) => r.reason)));
    const violated = new Set(vectors.cases.flatMap((c) => c.expected.requestViolations.map((r) => r.reason)));
    expect([...rejected].sort()).toEqual(Object.values(VariableRejectionReason).sort());
    expect([...violated].sort()).toEqual(Object.values(RequestViolationReason).sort());
  });

  it.each(vectors.cases.map((c) => [c.name, c] as const))(
    'vector %s: evaluateWrite gives the expected verdict and digest',
    (_, c) => {
      const verdict = evaluateWrite(c.request, c.policy);
      expect({
        isSafe: verdict.isSafe,
        rejectedVariables: verdict.rejectedVariables.map(({ name, reason }) => ({ name, reason })),
        requestViolations: verdict.requestViolations.map(({ field, reason }) => ({ field, reason })),
      }).toEqual({
        isSafe: c.expected.isSafe,
        rejectedVariables: c.expected.rejectedVariables,
        requestViolations: c.expected.requestViolations,
      });
      expect(verdict.verdictDigest).toBe(c.expected.verdictDigest);
      // The documented layout, recomputed from the stored preimage with node:crypto alone.
      expect(sha256Tagged('reseal/v1/verdict-digest', c.expected.verdictPreimage)).toBe(c.expected.verdictDigest);
    },
  );

  it.each(vectors.invalid.map((c) => [c.name, c] as const))(
    'invalid vector %s: throws InvalidInputError at its path',
    (_, c) => {
      let caught: unknown;
      try {
        evaluateWrite(c.request, c.policy);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidInputError);
      expect((caught as InvalidInputError).issues.map((i) => i.path)).toContain(c.expectedIssuePath);
    },
  );

  it('value digests match the vectors and an independent SHA-256 of the documented bytes', () => {
    for (const { value, digest } of vectors.valueDigests) {
      expect(valueDigest(value)).toBe(digest);
      expect(sha256Tagged('reseal/v1/value', `{"v":1,"value":${JSON.stringify(value)}}`)).toBe(digest);
    }
  });

  it('hand-built preimages (docs/guard.md layout) reproduce two digests byte for byte', () => {
    const safe = byName('safe-operational');
    const safePreimage =
      '{"authority":"OPERATIONAL","formatVersion":1,"generationEpoch":7,"isSafe":true,' +
      '"lineageId":"lineage-agent-42.58c168c2d76a865be93ef93fd2d88df3","rejectedVariables":[],"requestViolations":[],' +
      '"residualId":"residual-0001","sessionId":"session-b"}';
    expect(safe.expected.verdictPreimage).toBe(safePreimage);
    expect(sha256Tagged('reseal/v1/verdict-digest', safePreimage)).toBe(
      evaluateWrite(safe.request, safe.policy).verdictDigest,
    );

    const violations = byName('request-violations');
    const violationsPreimage =
      '{"authority":"OPERATIONAL","formatVersion":1,"generationEpoch":7,"isSafe":false,' +
      '"lineageId":"lineage-agent-42.58c168c2d76a865be93ef93fd2d88df3","rejectedVariables":[],"requestViolations":[' +
      '{"field":"boundary.predecessorSessionId","reason":"SESSION_COLLAPSE"},' +
      '{"field":"generationEpoch","reason":"EPOCH_COLLAPSE"},' +
      '{"field":"sessionId","reason":"SESSION_MISMATCH"}],' +
      '"residualId":"residual-0001","sessionId":"session-a"}';
    expect(sha256Tagged('reseal/v1/verdict-digest', violationsPreimage)).toBe(
      evaluateWrite(violations.request, violations.policy).verdictDigest,
    );
  });

  it('the non-ASCII vector sorts names by UTF-16 code units, as RFC 8785 sorts keys', () => {
    const names = byName('unicode-name-order').expected.rejectedVariables.map((r) => r.name);
    expect(names).toEqual(['Z', 'caf\u00e9', '\u{1F600}', '\uff5a']);
  });
});
