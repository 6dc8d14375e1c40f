/**
 * Writes test/vectors/guard.json: run once with
 * `npx tsx test/unit/shared/guard/vectors.generate.ts > test/vectors/guard.json`, then review the
 * diff by hand. The vectors are committed; `vectors.test.ts` checks the code against them, so a
 * change of the digest layout shows up as a failing test, never as a silently regenerated file.
 *
 * Every case's request is signed last (docs/authorship.md, "Signed writes") by the test writer key
 * (seed 0x80…0x9f) at the factories' "now", so each carries a writer block that verifies; Ed25519
 * is deterministic, so a rerun writes the same bytes. The invalid requests keep the block of the
 * valid request they were edited from: they fail validation before any signature check.
 */
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { InvalidInputError } from '../../../../shared/errors';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { Authority } from '../../../../shared/schemas/authority';
import { valueDigest } from '../../../../shared/write/value-digest';
import {
  ACTIVE_SESSION_ID,
  BOUNDARY_AGE_MS,
  FACTORY_NOW_MS,
  freshVariable,
  GENERATION_EPOCH,
  guardPolicy,
  immutableConstant,
  PREDECESSOR_SESSION_ID,
  unverifiedInheritedVariable,
  validBoundary,
  validWriteRequest,
  verifiedInheritedVariable,
} from '../../../helpers/guard-factories';
import { signWriteSync, TEST_WRITER } from '../../../helpers/writer-factories';

const policy = guardPolicy();
const base = validWriteRequest();
const boundaryAt = FACTORY_NOW_MS - BOUNDARY_AGE_MS;

const cases: { name: string; description: string; request: unknown; policy: unknown }[] = [
  {
    name: 'safe-operational',
    description: 'fresh, re-verified and declared-constant variables',
    request: base,
    policy,
  },
  {
    name: 'unverified-inherited',
    description: 'docs/guard.md V4',
    request: {
      ...base,
      variablesUsed: [...base.variablesUsed, unverifiedInheritedVariable('targetResourceId2', 'i-gone')],
    },
    policy,
  },
  {
    name: 'missing-receipt',
    description: 'docs/guard.md V2–V3: VERIFIED_INHERITED without a receipt',
    request: {
      ...base,
      variablesUsed: [{ name: 'bearerToken', value: 't', freshness: 'VERIFIED_INHERITED', sourceEpoch: 6 }],
    },
    policy,
  },
  {
    name: 'receipt-all-failures',
    description: 'blank probe, other value, predecessor session, before the boundary, expired',
    request: {
      ...base,
      variablesUsed: [
        verifiedInheritedVariable('bearerToken', 'tok-1', {
          probe: '  ',
          observedValueDigest: valueDigest('tok-0'),
          sessionId: PREDECESSOR_SESSION_ID,
          probedAtMs: boundaryAt - 3_600_000,
        }),
      ],
    },
    policy,
  },
  {
    name: 'receipt-from-future',
    description: 'probe time beyond now + maxClockSkewSeconds (2 s here)',
    request: { ...base, variablesUsed: [verifiedInheritedVariable('x', 'y', { probedAtMs: FACTORY_NOW_MS + 2_001 })] },
    policy: guardPolicy({ maxClockSkewSeconds: 2 }),
  },
  {
    name: 'undeclared-constant',
    description: 'docs/guard.md V5: IMMUTABLE_CONSTANT must be declared',
    request: { ...base, variablesUsed: [immutableConstant('schemaVersion', 'v3')], declaredImmutableConstants: [] },
    policy,
  },
  {
    name: 'fresh-epoch-collapse',
    description: 'FRESH_GENERATED variable from the predecessor epoch',
    request: { ...base, variablesUsed: [freshVariable('sessionUuid', 'u-1', { sourceEpoch: GENERATION_EPOCH - 1 })] },
    policy,
  },
  {
    name: 'historical-attribution',
    description: 'docs/guard.md V6: exempt from freshness, no operational authority',
    request: {
      ...base,
      authority: Authority.HISTORICAL_ATTRIBUTION,
      variablesUsed: [unverifiedInheritedVariable('predecessorResourceId', 'i-old')],
    },
    policy,
  },
  {
    name: 'request-violations',
    description: 'write attributed to the predecessor session, reusing its epoch, boundary naming itself',
    request: {
      ...base,
      sessionId: PREDECESSOR_SESSION_ID,
      variablesUsed: [],
      boundary: validBoundary({ predecessorSessionId: ACTIVE_SESSION_ID, predecessorEpoch: GENERATION_EPOCH }),
    },
    policy,
  },
  {
    name: 'boundary-from-future',
    description: 'a boundary later than now + 5 s',
    request: { ...base, variablesUsed: [], boundary: validBoundary({ boundaryAtMs: FACTORY_NOW_MS + 60_000 }) },
    policy,
  },
  {
    name: 'cold-start',
    description: 'no predecessor, epoch 0, no variables, null payload',
    request: {
      ...base,
      generationEpoch: 0,
      payload: null,
      variablesUsed: [],
      declaredImmutableConstants: [],
      boundary: { activeSessionId: ACTIVE_SESSION_ID, boundaryAtMs: boundaryAt },
    },
    policy,
  },
  {
    name: 'inherited-epoch-out-of-range',
    description:
      'docs/guard.md E1: inherited variables from epoch 99 (after the generation epoch 7) and from epoch 7 itself',
    request: {
      ...base,
      variablesUsed: [
        { ...verifiedInheritedVariable('targetResourceId', 'i-0abc123'), sourceEpoch: 99 },
        unverifiedInheritedVariable('writeTimestamp', '2027', { sourceEpoch: GENERATION_EPOCH }),
      ],
    },
    policy,
  },
  {
    name: 'inherited-cold-start',
    description: 'docs/guard.md E3: a re-verified inherited variable in a write naming no predecessor',
    request: {
      ...base,
      variablesUsed: [verifiedInheritedVariable('targetResourceId', 'i-0abc123')],
      boundary: { activeSessionId: ACTIVE_SESSION_ID, boundaryAtMs: boundaryAt },
    },
    policy,
  },
  {
    name: 'unicode-name-order',
    description: 'rejections sorted by UTF-16 code units: U+1F600 (D83D DE00) sorts before U+FF5A',
    request: {
      ...base,
      variablesUsed: [
        unverifiedInheritedVariable('\uff5a', '1'),
        unverifiedInheritedVariable('\u{1F600}', '2'),
        unverifiedInheritedVariable('caf\u00e9', '3'),
        unverifiedInheritedVariable('Z', '4'),
      ],
    },
    policy,
  },
];

const invalid: { name: string; path: string; request: unknown }[] = [
  { name: 'unknown-field', path: '', request: { ...base, isSafe: true } },
  {
    name: 'duplicate-name',
    path: 'variablesUsed.1.name',
    request: { ...base, variablesUsed: [freshVariable('a', '1'), freshVariable('a', '2')] },
  },
  {
    name: 'proto-key-in-payload',
    path: 'payload.__proto__',
    request: { ...base, payload: JSON.parse('{"__proto__":1}') },
  },
  {
    name: 'control-char-in-name',
    path: 'variablesUsed.0.name',
    request: { ...base, variablesUsed: [freshVariable('a\nb', '1')] },
  },
  { name: 'missing-epoch', path: 'generationEpoch', request: { ...base, generationEpoch: undefined } },
  {
    name: 'predecessor-without-epoch',
    path: 'boundary.predecessorEpoch',
    request: { ...base, boundary: { ...validBoundary(), predecessorEpoch: undefined } },
  },
];

const out = {
  description:
    'Stale-state guard vectors. verdictDigest = SHA-256(ASCII("reseal/v1/verdict-digest") || 0x00 || UTF-8(preimage)); see docs/guard.md. Each case request is signed by the Ed25519 test writer key of seed 0x80..0x9f (docs/authorship.md, "Signed writes").',
  valueDigests: ['i-0abc123', '', 'caf\u00e9', '\u{1F600}\n"'].map((value) => ({ value, digest: valueDigest(value) })),
  cases: cases.map(({ name, description, request, policy: p }) => {
    const r = JSON.parse(JSON.stringify(signWriteSync(request as never, TEST_WRITER, FACTORY_NOW_MS)));
    const verdict = evaluateWrite(r, p as never);
    const preimage = canonicalJson({
      formatVersion: 1,
      residualId: r.residualId,
      lineageId: r.lineageId,
      sessionId: r.sessionId,
      generationEpoch: r.generationEpoch,
      authority: r.authority,
      isSafe: verdict.isSafe,
      rejectedVariables: verdict.rejectedVariables.map(({ name: n, reason }) => ({ name: n, reason })),
      requestViolations: verdict.requestViolations.map(({ field, reason }) => ({ field, reason })),
    });
    return {
      name,
      description,
      request: r,
      policy: p,
      expected: {
        isSafe: verdict.isSafe,
        rejectedVariables: verdict.rejectedVariables.map(({ name: n, reason }) => ({ name: n, reason })),
        requestViolations: verdict.requestViolations.map(({ field, reason }) => ({ field, reason })),
        verdictPreimage: preimage,
        verdictDigest: verdict.verdictDigest,
      },
    };
  }),
  invalid: invalid.map(({ name, path, request }) => {
    try {
      evaluateWrite(request, policy);
    } catch (error) {
      if (error instanceof InvalidInputError && error.issues.some((i) => i.path === path)) {
        return { name, request, policy, expectedIssuePath: path };
      }
      throw error;
    }
    throw new Error(`invalid vector ${name} produced a verdict`);
  }),
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
