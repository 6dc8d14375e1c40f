import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSealRequest } from '../../../../functions/sealer/seal-request-parse';
import { canonicalBytes, canonicalJson, canonicalString } from '../../../../shared/canonical/canonical-json';
import { HEX_DIGEST_PATTERN } from '../../../../shared/canonical/digest';
import { hashBytes } from '../../../../shared/canonical/hash-bytes';
import { hashCanonical } from '../../../../shared/canonical/hash-canonical';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { ResealError } from '../../../../shared/errors';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { SealRequestSchema } from '../../../../shared/pipeline/seal-request';
import {
  EnvSnapshot,
  isEnvValue,
  isPlainAsciiEnvValue,
  parseEnvSnapshot,
} from '../../../../shared/schemas/env-snapshot';
import { isAsciiMapKey, isPlainAsciiMapKey } from '../../../../shared/schemas/is-ascii-map-key';
import { areHexDigests } from '../../../../shared/schemas/is-hex-digest';
import { NO_CONTROL_CHARACTERS } from '../../../../shared/schemas/no-control-characters';
import { parseInput } from '../../../../shared/schemas/parse';
import { markValidated } from '../../../../shared/schemas/validated';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { encodeHeader, encodeHeaderWithHash } from '../../../../shared/seal/record-header';
import { checkRecordIntegrity } from '../../../../shared/seal/record-integrity';
import { parseSealInput, SealInputSchema } from '../../../../shared/seal/seal-input';
import { sealRecord } from '../../../../shared/seal/seal-record';
import { SealedRecordSchema } from '../../../../shared/seal/sealed-record';
import { variablesDigest } from '../../../../shared/seal/variables-digest';
import { VerificationVerdict as V } from '../../../../shared/seal/verification-verdict';
import { acceptManifestWithDigests } from '../../../../shared/triage/accepts-manifest-v1';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import { compositeSealUnchecked } from '../../../../shared/triage/composite-seal';
import { envKeyHashUnchecked } from '../../../../shared/triage/env-key-hash';
import { isolateDelta, isolateValidatedDelta } from '../../../../shared/triage/isolate-delta';
import { manifestDigestOf, manifestDigests } from '../../../../shared/triage/manifest-digest';
import { parseManifest } from '../../../../shared/triage/parse-manifest';
import { SealedDependencyManifestSchema } from '../../../../shared/triage/sealed-dependency-manifest';
import { acceptWriteRequest } from '../../../../shared/write/accept-write-request';
import { checkPayload } from '../../../../shared/write/json-payload';
import { ResidualWriteRequestSchema } from '../../../../shared/write/write-request';
import {
  HOSTILE_STRINGS,
  type Mutation,
  mutate,
  mutationArb,
  render,
  toAst,
  tryParse,
} from '../../../helpers/fuzz-arbitraries';
import { FACTORY_NOW_MS, guardPolicy, validWriteRequest } from '../../../helpers/guard-factories';
import { sealInput, testAnchor } from '../../../helpers/seal-factories';

/**
 * The hand-written hot-path checks (shared/schemas/is-plain-record.ts, is-ascii-map-key.ts,
 * is-hex-digest.ts, has-exact-keys.ts, is-non-negative-int.ts and their users) against the
 * zod schemas they stand in for: on valid values and on mutants of them (hostile strings,
 * numbers, repeated, renamed, added and deleted members), each checked entry point accepts
 * exactly what its schema accepts, refuses with the schema's error, and the hand-written
 * canonical writers give `canonicalJson`'s bytes.
 */

const RUNS = 300;

/** The outcome of `run` as comparable data: the value's JSON, or the error's class and message. */
function outcome(run: () => unknown): unknown {
  try {
    return { ok: canonicalJson(run()) };
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return { error: error.name, message: error.message };
  }
}

/** Mutants of `value` (JSON in, JSON out), and the value itself. */
const mutantsOf = (value: unknown): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(structuredClone(value)),
    fc.array(mutationArb, { minLength: 1, maxLength: 3 }).map((mutations: Mutation[]) => {
      let node = toAst(value);
      for (const m of mutations) node = mutate(node, m);
      const parsed = tryParse(render(node));
      return parsed.ok ? parsed.value : null;
    }),
  );

const env = { ARCH: 'arm64', REGION: 'eu-west-1', 'caf\u00e9': 'x', HOST: 'h1', EMPTY: '' };
const manifest = buildManifest({
  env,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-1': ['REGION'], 'claim-2': ['HOST', 'REGION'], 'no-proxy': { absentKeys: ['PROXY'] } },
});
const asciiManifest = buildManifest({
  env: { ARCH: 'arm64', REGION: 'eu-west-1', HOST: 'h1' },
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-1': ['REGION'], 'claim-2': ['HOST'] },
});

describe('hand-written checks agree with the schemas', () => {
  it('areHexDigests refuses holes in short and long lists', () => {
    const digest = 'a'.repeat(64);
    expect(areHexDigests(new Array(3))).toBe(false);
    const holed = (length: number): string[] => {
      const list = new Array<string>(length).fill(digest);
      delete list[1];
      return list;
    };
    expect(1 in holed(3)).toBe(false);
    expect(areHexDigests(holed(3))).toBe(false);
    expect(areHexDigests(holed(11))).toBe(false);
    expect(areHexDigests([digest, digest])).toBe(true);
  });

  it('areHexDigests is the HexDigest pattern on each value', () => {
    const digest = 'a'.repeat(32) + '0123456789abcdef'.repeat(2);
    const edited = fc
      .tuple(fc.nat(63), fc.constantFrom('A', 'F', 'g', 'š', 'Ł', '\u0130', '\ud800', '0', ' ', '\u0661', 'ａ'))
      .map(([at, c]) => (digest.slice(0, at) + c + digest.slice(at + 1)).slice(0, 64));
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(digest), edited, fc.string()), { maxLength: 4 }), (values) => {
        expect(areHexDigests(values)).toBe(values.every((v) => HEX_DIGEST_PATTERN.test(v)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('parseManifest accepts and refuses exactly as the schema, with its message', () => {
    fc.assert(
      fc.property(fc.oneof(mutantsOf(manifest), mutantsOf(asciiManifest)), (raw) => {
        expect(outcome(() => parseManifest(raw))).toEqual(
          outcome(() => parseInput(SealedDependencyManifestSchema, raw, 'sealed dependency manifest')),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('acceptManifestWithDigests takes only manifests the schema accepts, with their digests, and every plain format-1 one', () => {
    expect(acceptManifestWithDigests(structuredClone(asciiManifest))).not.toBeNull();
    fc.assert(
      fc.property(fc.oneof(mutantsOf(manifest), mutantsOf(asciiManifest)), (raw) => {
        const fast = acceptManifestWithDigests(raw);
        if (fast === null) return;
        const reference = SealedDependencyManifestSchema.safeParse(raw);
        expect(reference.success).toBe(true);
        expect(fast).toEqual({
          manifest: raw,
          ...manifestDigests(parseManifest(raw)),
          size: Object.keys((raw as { baselineKeyHashes: object }).baselineKeyHashes).length,
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('parseEnvSnapshot accepts and refuses exactly as the EnvSnapshot schema', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          mutantsOf(env),
          fc.dictionary(fc.constantFrom(...HOSTILE_STRINGS), fc.constantFrom(...HOSTILE_STRINGS)),
        ),
        (raw) => {
          expect(outcome(() => parseEnvSnapshot(raw, 'current environment'))).toEqual(
            outcome(() => parseInput(EnvSnapshot, raw, 'current environment')),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('isolateDelta (deferred digest checks) gives the report or error of the schemas then the core', () => {
    const current = { ...env, HOST: 'h2', NEW: 'n' };
    fc.assert(
      fc.property(fc.oneof(mutantsOf(manifest), mutantsOf(asciiManifest)), mutantsOf(current), (m, e) => {
        expect(outcome(() => isolateDelta(m, e))).toEqual(
          outcome(() =>
            isolateValidatedDelta(
              markValidated(parseInput(SealedDependencyManifestSchema, m, 'sealed dependency manifest')),
              markValidated(parseInput(EnvSnapshot, e, 'current environment')),
            ),
          ),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('isolateDelta on a manifest of more keys than one hash update holds, the same as the schemas then the core', () => {
    // 300 keys: the baseline is hashed in pieces (256 members each), and the environment is
    // compared in the same pass; mutants of the environment and of the manifest stop that pass
    // at any key (hostile keys and values, other types, deleted and added members).
    const largeEnv: Record<string, string> = {};
    for (let i = 0; i < 300; i++) largeEnv[`K${String(i).padStart(3, '0')}`] = `v${i}`;
    largeEnv['caf\u00e9'] = 'x';
    largeEnv['QUOTE"D'] = 'back\\slash';
    const large = buildManifest({
      env: largeEnv,
      structuralKeys: ['K000'],
      claimDependencyMap: { 'claim-1': ['K100', 'K299'], 'claim-2': ['K200'] },
    });
    const asciiEnv = Object.fromEntries(Object.entries(largeEnv).filter(([key]) => key !== 'caf\u00e9'));
    const largeAscii = buildManifest({
      env: asciiEnv,
      structuralKeys: ['K000'],
      claimDependencyMap: { 'claim-1': ['K100', 'K299'], 'claim-2': ['K200'] },
    });
    const current = { ...largeEnv, K100: 'changed', K250: 'also', NEW: 'n' };
    const currentAscii = { ...asciiEnv, K100: 'changed', K250: 'also', NEW: 'n' };
    // Values and keys that need an escape take the other writer in the pass.
    const escaped = { ...currentAscii, K150: '\u00fc', 'QUOTE"D': 'changed\\', K299: 'tab\t', 'NEW"': 'n"' };
    const agrees = (m: unknown, e: unknown): void => {
      expect(outcome(() => isolateDelta(m, e))).toEqual(
        outcome(() =>
          isolateValidatedDelta(
            markValidated(parseInput(SealedDependencyManifestSchema, m, 'sealed dependency manifest')),
            markValidated(parseInput(EnvSnapshot, e, 'current environment')),
          ),
        ),
      );
    };
    // The unmutated pairs first (the ASCII manifest takes the one pass; the other asks the schema).
    for (const m of [large, largeAscii])
      for (const e of [current, currentAscii, escaped, largeEnv, asciiEnv]) agrees(m, e);
    expect(isolateDelta(largeAscii, escaped).driftedKeys.changed).toEqual(['K100', 'K150', 'K250', 'K299', 'QUOTE"D']);
    fc.assert(
      fc.property(
        fc.oneof(mutantsOf(large), mutantsOf(largeAscii)),
        fc.oneof(mutantsOf(current), mutantsOf(currentAscii), mutantsOf(escaped)),
        agrees,
      ),
      { numRuns: 60 },
    );
  });

  it('isPlainAsciiMapKey and isPlainAsciiEnvValue: a key or value they accept is one the checks accept, written as is', () => {
    const text = fc.oneof(
      fc.constantFrom(...HOSTILE_STRINGS),
      fc.string({ unit: 'binary-ascii', maxLength: 600 }),
      fc.stringMatching(/^[\x20-\x7e]{0,8}$/),
    );
    fc.assert(
      fc.property(text, (s) => {
        if (isPlainAsciiMapKey(s)) {
          expect(isAsciiMapKey(s)).toBe(true);
          expect(canonicalString(s)).toBe(`"${s}"`);
        }
        if (isPlainAsciiEnvValue(s)) {
          expect(isEnvValue(s)).toBe(true);
          expect(canonicalString(s)).toBe(`"${s}"`);
        }
        // Printable ASCII with no quote or backslash is plain (the fast path is the common one).
        const plain = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(s);
        expect(isPlainAsciiEnvValue(s)).toBe(plain);
        expect(isPlainAsciiMapKey(s)).toBe(plain && s.length >= 1 && s.length <= 512 && s !== '__proto__');
      }),
      { numRuns: 2_000 },
    );
  });

  it('parseSealInput accepts and refuses as SealInputSchema, with the digests of the bodies', () => {
    fc.assert(
      fc.property(mutantsOf(sealInput(0, { manifest: asciiManifest })), (raw) => {
        const fast = outcome(() => {
          const { input, payloadHash: p, manifestDigest: d } = parseSealInput(raw);
          return { input, p, d };
        });
        const reference = outcome(() => {
          const input = parseInput(SealInputSchema, raw, 'seal input');
          return { input, p: payloadHash(input.payload), d: hashCanonical(HashDomain.MANIFEST, input.manifest) };
        });
        expect(fast).toEqual(reference);
      }),
      { numRuns: RUNS },
    );
  });

  it('parseSealRequest accepts and refuses as SealRequestSchema, with its issues', () => {
    const request = validWriteRequest({ manifest: asciiManifest });
    const body = {
      formatVersion: 1,
      request,
      verdict: evaluateWrite(request, guardPolicy()),
      acceptedAtMs: FACTORY_NOW_MS,
    };
    fc.assert(
      fc.property(mutantsOf(body), (raw) => {
        const parsed = parseSealRequest(raw);
        const reference = SealRequestSchema.safeParse(raw);
        if (!reference.success) {
          expect(parsed).toEqual({
            detail: reference.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
          });
          return;
        }
        if ('detail' in parsed) throw new Error(`refused a valid seal request: ${parsed.detail}`);
        expect(canonicalJson(parsed.request)).toBe(canonicalJson(reference.data));
        expect(parsed.seal.payloadHash).toBe(payloadHash(reference.data.request.payload));
        expect(parsed.seal.manifestDigest).toBe(hashCanonical(HashDomain.MANIFEST, reference.data.request.manifest));
      }),
      { numRuns: RUNS },
    );
  });

  it('acceptWriteRequest accepts only what ResidualWriteRequestSchema accepts, its output byte for byte', () => {
    const plain = validWriteRequest({ manifest: asciiManifest });
    const { policy: _policy, ...withoutPolicy } = validWriteRequest({
      manifest: asciiManifest,
      supersedes: { seq: 3, recordHash: 'c'.repeat(64) },
    });
    // Valid requests, fields in the canonical (sorted) order a queue body has, take the fast path.
    for (const request of [plain, withoutPolicy]) {
      expect(acceptWriteRequest(JSON.parse(canonicalJson(request)))).not.toBeNull();
    }
    fc.assert(
      fc.property(
        fc.oneof(mutantsOf(plain), mutantsOf(withoutPolicy), mutantsOf(validWriteRequest({ manifest }))),
        (raw) => {
          const accepted = acceptWriteRequest(raw);
          // Declined: the guard asks the schema, which decides and words the issues.
          if (accepted === null) return;
          const reference = ResidualWriteRequestSchema.safeParse(raw);
          if (!reference.success) throw new Error(`accepted what the schema refuses: ${reference.error.message}`);
          expect(Object.keys(accepted.request)).toEqual(Object.keys(reference.data));
          expect(Object.keys(accepted.request.manifest)).toEqual(Object.keys(reference.data.manifest));
          expect(JSON.stringify(accepted.request)).toBe(JSON.stringify(reference.data));
          expect(accepted.digests.payloadHash).toBe(payloadHash(reference.data.payload));
          expect(accepted.digests.manifestDigest).toBe(hashCanonical(HashDomain.MANIFEST, reference.data.manifest));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('checkRecordIntegrity gives the verdict and reason of the schema-first checks', async () => {
    const record = await sealRecord(
      sealInput(0, { manifest: asciiManifest, supersedes: undefined }),
      null,
      testAnchor(),
      FACTORY_NOW_MS,
    );
    // The checks as they were written before the hand-written shape check: schema first, then digests.
    const reference = (raw: unknown) => {
      const version = (raw as { header?: { formatVersion?: unknown } } | null)?.header?.formatVersion;
      if (typeof version === 'number' && version !== 1) return { verdict: V.UNVERIFIED_TAMPER_RISK };
      // A record back from the store without the manifest its header names (docs/sealing.md, "Stored items").
      if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
        const { manifest, header } = raw as { manifest?: unknown; header?: { manifestDigest?: unknown } };
        const digest = header !== null && typeof header === 'object' ? header.manifestDigest : undefined;
        if (
          (manifest === undefined || manifest === null) &&
          typeof digest === 'string' &&
          /^[0-9a-f]{64}$/.test(digest)
        )
          return { verdict: V.HASH_MISMATCH, reason: `the manifest of manifestDigest ${digest}` };
      }
      const parsed = SealedRecordSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return {
          verdict: V.HASH_MISMATCH,
          reason: `malformed record at ${issue?.path.join('.') || '<root>'}: ${issue?.message}`,
        };
      }
      const r = parsed.data;
      if (payloadHash(r.payload) !== r.header.payloadHash) return { verdict: V.HASH_MISMATCH, reason: 'payload' };
      if (hashCanonical(HashDomain.MANIFEST, r.manifest) !== r.header.manifestDigest)
        return { verdict: V.HASH_MISMATCH, reason: 'manifest' };
      if (variablesDigest(r.variablesUsed) !== r.header.variablesDigest)
        return { verdict: V.HASH_MISMATCH, reason: 'variables' };
      return { verdict: 'REST' };
    };
    fc.assert(
      fc.property(mutantsOf(record), (raw) => {
        const expected = reference(raw);
        const actual = checkRecordIntegrity(raw);
        if ('record' in actual) {
          expect(expected.verdict).toBe('REST');
          return;
        }
        if (expected.verdict === 'REST') return; // a later check (sealedAtMs, size, record hash, key id) refused it
        expect(actual.verdict).toBe(expected.verdict);
        if (expected.reason?.startsWith('malformed')) expect(actual.reason).toBe(expected.reason);
        else if (expected.reason) expect(actual.reason).toContain(expected.reason);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('strict objects: the hand-written shape checks ignore symbol keys as zod strict objects do', () => {
  it('checkRecordIntegrity and parseSealInput accept a record and an input whose objects carry symbol keys', async () => {
    const tag = Symbol('in-process');
    const input = sealInput(0, { manifest: asciiManifest, supersedes: undefined });
    const record = await sealRecord(input, null, testAnchor(), FACTORY_NOW_MS);
    const tagged = structuredClone(record) as typeof record & Record<symbol, unknown>;
    for (const target of [tagged, tagged.header, tagged.anchor, tagged.variablesUsed[0] as object]) {
      Object.assign(target, { [tag]: 1 });
    }
    expect(SealedRecordSchema.safeParse(tagged).success).toBe(true);
    expect(checkRecordIntegrity(tagged)).toMatchObject({ recordHash: record.recordHash });
    const taggedInput = { ...input, [tag]: 1, variablesUsed: input.variablesUsed.map((v) => ({ ...v, [tag]: 1 })) };
    expect(SealInputSchema.safeParse(taggedInput).success).toBe(true);
    expect(parseSealInput(taggedInput).payloadHash).toBe(payloadHash(input.payload));
  });
});

describe('hand-written canonical writers give canonicalJson bytes', () => {
  const text = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.isWellFormed())),
    fc.string({ unit: 'grapheme' }),
  );

  it('envKeyHashUnchecked and compositeSealUnchecked', () => {
    fc.assert(
      fc.property(text, text, fc.dictionary(text, fc.stringMatching(/^[0-9a-f]{64}$/)), (key, value, hashes) => {
        expect(envKeyHashUnchecked(key, value)).toBe(hashCanonical(HashDomain.ENV_KEY, { v: 1, key, value }));
        expect(compositeSealUnchecked(hashes)).toBe(
          hashCanonical(HashDomain.COMPOSITE_SEAL, { v: 1, baselineKeyHashes: hashes }),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('compositeSealUnchecked and manifestDigests over more members than one hash update holds', () => {
    const digest = fc.stringMatching(/^[0-9a-f]{64}$/);
    fc.assert(
      fc.property(fc.dictionary(text, digest, { minKeys: 257, maxKeys: 600 }), (hashes) => {
        const composite = hashCanonical(HashDomain.COMPOSITE_SEAL, { v: 1, baselineKeyHashes: hashes });
        expect(compositeSealUnchecked(hashes)).toBe(composite);
        // The writers' bytes, not the schema, are under test: a manifest of these keys, as validated.
        const m = markValidated({
          formatVersion: 2 as const,
          preconditionSeal: composite,
          baselineKeyHashes: hashes,
          absentKeys: ['ABSENT'],
          structuralKeys: ['ABSENT'],
          claimDependencyMap: { c: ['ABSENT'] },
        });
        expect(manifestDigests(m)).toEqual({
          compositeSeal: composite,
          manifestDigest: hashCanonical(HashDomain.MANIFEST, m),
        });
        expect(manifestDigestOf(m)).toBe(hashCanonical(HashDomain.MANIFEST, m));
      }),
      { numRuns: 25 },
    );
  });

  it('manifestDigestOf, for format 1 and 2', () => {
    for (const m of [manifest, asciiManifest]) {
      expect(manifestDigestOf(parseManifest(m))).toBe(hashCanonical(HashDomain.MANIFEST, m));
    }
  });

  it('variablesDigest: the plain-variable writer gives the generic bytes, or the generic error', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom(...HOSTILE_STRINGS));
    const variable = fc.oneof(
      fc.record({
        name: text,
        value: text,
        freshness: fc.oneof(fc.constantFrom('FRESH_GENERATED', 'INHERITED', 'REPROBED'), text),
        sourceEpoch: fc.oneof(fc.nat(), fc.constantFrom(-0, 1.5, Number.NaN, 2 ** 60)),
      }),
      fc.record(
        { name: text, value: text, freshness: text, sourceEpoch: fc.nat(), receipt: fc.jsonValue() },
        { requiredKeys: ['name'] },
      ),
      fc.anything(),
    );
    fc.assert(
      fc.property(fc.array(variable, { maxLength: 4 }), (variablesUsed) => {
        const list = variablesUsed as Parameters<typeof variablesDigest>[0];
        expect(outcome(() => variablesDigest(list))).toEqual(
          outcome(() => hashCanonical(HashDomain.VARIABLES, { v: 1, variablesUsed })),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('encodeHeader', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((k) => NO_CONTROL_CHARACTERS.test(k)),
        fc.option(fc.record({ seq: fc.nat(), recordHash: fc.stringMatching(/^[0-9a-f]{64}$/) }), { nil: undefined }),
        async (keyId, supersedes) => {
          const head = supersedes
            ? {
                lineageId: sealInput(0).lineageId,
                seq: supersedes.seq,
                recordHash: supersedes.recordHash,
                generationEpoch: 0,
              }
            : null;
          const record = await sealRecord(sealInput(0, { supersedes }), head, testAnchor({ keyId }), FACTORY_NOW_MS);
          // A Buffer (a Uint8Array) from the writer, compared byte for byte.
          expect(Uint8Array.from(encodeHeader(record.header))).toEqual(canonicalBytes(record.header));
          expect(encodeHeaderWithHash(record.header).recordHash).toBe(record.recordHash);
          expect(record.recordHash).toBe(hashBytes(HashDomain.RECORD_HEADER, canonicalBytes(record.header)));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('checkPayload canonicalizes once: the text is canonicalJson of the payload', () => {
    const payload = { b: [1, 'x', { d: null, c: true }], a: 'caf\u00e9' };
    expect(checkPayload(payload)).toEqual({
      value: payload,
      canonicalText: '{"a":"café","b":[1,"x",{"c":true,"d":null}]}',
    });
  });
});
