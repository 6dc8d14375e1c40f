import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertCanonicalizable } from '../../../../shared/canonical/assert-canonicalizable';
import type { JsonValue } from '../../../../shared/canonical/canonical-json';
import { FORMAT_VERSION } from '../../../../shared/canonical/hash-domain';
import { Authority } from '../../../../shared/schemas/authority';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { RECORD_FORMAT_WRITER_BOUND, type RecordHeader, recordHashOf } from '../../../../shared/seal/record-header';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { VerificationVerdict as V } from '../../../../shared/seal/verification-verdict';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import {
  buildChain,
  cloneRecord,
  TEST_LINEAGE_ID,
  TEST_NOW_MS,
  testAnchor,
  testReceiptVariable,
  testVariable,
} from '../../../helpers/seal-factories';

/** JSON payloads the seal accepts: canonicalizable, no `__proto__` key. */
const payloadArb: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 3 }).filter((value) => {
  try {
    assertCanonicalizable(value);
  } catch {
    return false;
  }
  return !JSON.stringify(value).includes('"__proto__"');
}) as fc.Arbitrary<JsonValue>;

const recordSpecArb = fc.record({
  payload: payloadArb,
  authority: fc.constantFrom(...Object.values(Authority)),
  epochBump: fc.nat(2),
  /** 0: no variables, 1: one fresh variable, 2: that plus one carrying a freshness receipt. */
  variables: fc.nat(2),
});
const chainSpecArb = (minLength: number) => fc.array(recordSpecArb, { minLength, maxLength: 5 });

interface Spec {
  payload: JsonValue;
  authority: Authority;
  epochBump: number;
  variables: number;
}

const variablesOf = (spec: Spec, index: number) =>
  [testVariable(), testReceiptVariable('TARGET_RESOURCE_ID', `i-${index}`, `session-${index}`)].slice(
    0,
    spec.variables,
  );

async function chainFrom(specs: readonly Spec[]) {
  const epochs = specs.map((_, i) => specs.slice(0, i + 1).reduce((sum, s) => sum + s.epochBump, 0));
  return buildChain(specs.length, {
    inputs: (i) => ({
      payload: (specs[i] as Spec).payload,
      authority: (specs[i] as Spec).authority,
      generationEpoch: epochs[i] as number,
      variablesUsed: variablesOf(specs[i] as Spec, i),
    }),
  });
}

const verify = (records: unknown[], checkpoint?: { seq: number; recordHash: string }) =>
  verifyChain(records, { lineageId: TEST_LINEAGE_ID, anchor: testAnchor(), ...(checkpoint ? { checkpoint } : {}) });

type Path = readonly (string | number)[];

/** Paths of every primitive leaf of `value`. */
function leaves(value: unknown, path: Path = []): Path[] {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) =>
      leaves(child, [...path, Array.isArray(value) ? Number(key) : key]),
    );
  }
  return [path];
}

/** A definite tamper verdict (anything but "intact" or "could not check"). */
const DEFINITE: readonly string[] = [V.HASH_MISMATCH, V.LINEAGE_BROKEN, V.SEQUENCE_REPLAYED];

/**
 * Asserts that a chain with record `target` edited is detected exactly there: every earlier
 * record intact, the target itself failing, and the chain's first failure at the target. Only an
 * edited `formatVersion` gives `UNVERIFIED_TAMPER_RISK` (a version this verifier cannot read);
 * every other edit is a definite `HASH_MISMATCH`/`LINEAGE_BROKEN`/`SEQUENCE_REPLAYED`.
 */
async function expectDetectedAt(tampered: unknown[], target: number, path: Path): Promise<void> {
  const result = await verify(tampered);
  const what = `changed ${path.join('.')}`;
  expect(result.verdict, what).not.toBe(V.VERIFIED_INTACT);
  result.records.slice(0, target).forEach((r) => {
    expect(r.verdict, what).toBe(V.VERIFIED_INTACT);
  });
  // A format version no verifier knows cannot be judged; a change to the other known format is a definite mismatch.
  const version = (tampered[target] as { header?: { formatVersion?: unknown } } | undefined)?.header?.formatVersion;
  const unknownFormat =
    path.join('.') === 'header.formatVersion' && version !== FORMAT_VERSION && version !== RECORD_FORMAT_WRITER_BOUND;
  const expected = unknownFormat ? [V.UNVERIFIED_TAMPER_RISK] : DEFINITE;
  expect(expected, what).toContain(result.records[target]?.verdict);
  expect(result.firstFailure?.verdict, what).toBe(result.records[target]?.verdict);
  expect(result.firstFailure?.reason, what).toBe(result.records[target]?.reason);
}

/** One-character (or one-unit) change of the leaf at `path`, in place. */
function mutate(root: unknown, path: Path, position: number): void {
  const parent = path
    .slice(0, -1)
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], root) as Record<string | number, unknown>;
  const key = path.at(-1) as string | number;
  const value = parent[key];
  if (typeof value === 'string') {
    if (value.length === 0) parent[key] = 'x';
    else {
      const p = position % value.length;
      parent[key] = `${value.slice(0, p)}${value[p] === 'a' ? 'b' : 'a'}${value.slice(p + 1)}`;
    }
  } else if (typeof value === 'number') {
    parent[key] = value + 1 !== value ? value + 1 : -value - 1;
  } else if (typeof value === 'boolean') parent[key] = !value;
  else parent[key] = 0; // null
}

describe('seal properties (fast-check)', () => {
  it('docs/sealing.md "Verification": any chain sealed in order verifies VERIFIED_INTACT, also after a JSON round trip', async () => {
    await fc.assert(
      fc.asyncProperty(chainSpecArb(0), async (specs) => {
        const { records, head } = await chainFrom(specs);
        const result = await verify(cloneRecord(records), head ?? undefined);
        expect(result.verdict).toBe(V.VERIFIED_INTACT);
        expect(result.head).toEqual(head && { seq: head.seq, recordHash: head.recordHash });
      }),
      { numRuns: 60 },
    );
  });

  it('docs/sealing.md verification steps 2–5: any one-character change to any field of any record (variablesUsed and sealedAtMs included) is detected at that record', async () => {
    await fc.assert(
      fc.asyncProperty(chainSpecArb(1), fc.nat(), fc.nat(), fc.nat(), async (specs, pickRecord, pickLeaf, position) => {
        const { records } = await chainFrom(specs);
        const target = pickRecord % records.length;
        const tampered = cloneRecord(records);
        const paths = leaves(tampered[target]);
        const path = paths[pickLeaf % paths.length] as Path;
        mutate(tampered[target], path, position);
        await expectDetectedAt(tampered, target, path);
      }),
      { numRuns: 300 },
    );
  });

  it('docs/sealing.md "Record layout": every string and number leaf of a stored record is bound (exhaustive over one record with a receipt)', async () => {
    const { records } = await buildChain(3, {
      inputs: (i) => ({ variablesUsed: [testVariable(), testReceiptVariable('TARGET', `i-${i}`, `session-${i}`)] }),
    });
    const target = 1;
    const paths = leaves(records[target]);
    const covered = paths.map((p) => p.join('.'));
    for (const field of ['sealedAtMs', 'variablesUsed.1.receipt.probedAtMs', 'variablesUsed.1.receipt.probe']) {
      expect(covered).toContain(field);
    }
    expect((records[target] as SealedRecord).sealedAtMs).toBe(TEST_NOW_MS + target);
    for (const path of paths) {
      for (const position of [0, 7]) {
        const tampered = cloneRecord(records);
        mutate(tampered[target], path, position);
        await expectDetectedAt(tampered, target, path);
      }
    }
  });

  it('docs/sealing.md verification steps 7–8 and truncation: deleting, swapping or duplicating any record is detected', async () => {
    const editArb = fc.oneof(
      fc.record({ kind: fc.constant('delete' as const), a: fc.nat(), b: fc.nat() }),
      fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
      fc.record({ kind: fc.constant('duplicate' as const), a: fc.nat(), b: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(chainSpecArb(2), editArb, async (specs, edit) => {
        const { records, head } = await chainFrom(specs);
        const n = records.length;
        const a = edit.a % n;
        const edited = [...records];
        if (edit.kind === 'delete') edited.splice(a, 1);
        else if (edit.kind === 'swap') {
          const b = (a + 1 + (edit.b % (n - 1))) % n; // any other position
          [edited[a], edited[b]] = [edited[b] as SealedRecord, edited[a] as SealedRecord];
        } else edited.splice(edit.b % (n + 1), 0, records[a] as SealedRecord);
        const withCheckpoint = await verify(edited, head ?? undefined);
        expect(withCheckpoint.verdict).not.toBe(V.VERIFIED_INTACT);
        // Swaps and duplicates show even without a checkpoint; only a cut tail needs one.
        if (edit.kind !== 'delete') expect((await verify(edited)).verdict).not.toBe(V.VERIFIED_INTACT);
      }),
      { numRuns: 150 },
    );
  });

  it('canonical form: payload and record hashes do not depend on key order', async () => {
    const reorder = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reorder);
      if (value !== null && typeof value === 'object') {
        return Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, reorder(v)]),
        );
      }
      return value;
    };
    const { records } = await buildChain(1);
    const header = (records[0] as SealedRecord).header;
    expect(recordHashOf(reorder(header) as RecordHeader)).toBe(recordHashOf(header));
    fc.assert(
      fc.property(payloadArb, (payload) => {
        expect(payloadHash(reorder(payload))).toBe(payloadHash(payload));
      }),
      { numRuns: 200 },
    );
  });
});
