import type { JsonValue } from '../../shared/canonical/canonical-json';
import { hashCanonical } from '../../shared/canonical/hash-canonical';
import { HashDomain } from '../../shared/canonical/hash-domain';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import { type Authority, Authority as AuthorityValues } from '../../shared/schemas/authority';
import type { ChainVerification, VerifyChainOptions } from '../../shared/seal/chain-verification';
import { type LineageHead, lineageHeadOf } from '../../shared/seal/lineage-head';
import { LocalHmacAnchor } from '../../shared/seal/local-hmac-anchor';
import { payloadHash } from '../../shared/seal/payload-hash';
import { headerBytes, type RecordHeader, recordHashOf } from '../../shared/seal/record-header';
import type { SealInput } from '../../shared/seal/seal-input';
import { sealRecord } from '../../shared/seal/seal-record';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { variablesDigest } from '../../shared/seal/variables-digest';
import { verifyChain } from '../../shared/seal/verify-chain';
import { buildManifest } from '../../shared/triage/build-manifest';
import { manifestDigest } from '../../shared/triage/manifest-digest';
import type { SealedDependencyManifest } from '../../shared/triage/sealed-dependency-manifest';
import type { SessionVariable } from '../../shared/write/session-variable';
import { valueDigest } from '../../shared/write/value-digest';

/**
 * In-memory helpers for tests that need sealed records (docs/sealing.md), for reuse by any part.
 * Everything is deterministic: fixed key, fixed clock, ids derived from the index.
 */

/** The fixed test key: the 32 bytes 0x00, 0x01, …, 0x1f. */
export const TEST_KEY_BYTES: Uint8Array = Uint8Array.from({ length: 32 }, (_, i) => i);
/** Key id of {@link TEST_KEY_BYTES}. */
export const TEST_KEY_ID = 'test-key-1';
/** Default lineage id. */
export const TEST_LINEAGE_ID = 'lineage-test-1';
/** Default clock: 2026-10-26T00:00:00Z in ms. */
export const TEST_NOW_MS = Date.UTC(2026, 9, 26);

/** A {@link LocalHmacAnchor} over the fixed test key (a fresh instance each call, so disabling one is local). */
export function testAnchor(options: { keyId?: string; key?: Uint8Array; disabled?: boolean } = {}): LocalHmacAnchor {
  return new LocalHmacAnchor({
    keyId: options.keyId ?? TEST_KEY_ID,
    key: options.key ?? TEST_KEY_BYTES,
    disabled: options.disabled ?? false,
  });
}

/** A small valid manifest (docs/triage.md) built by `buildManifest`: two keys, one structural, one claim. */
export function testManifest(): SealedDependencyManifest {
  return buildManifest({
    env: { ARCH: 'arm64', REGION: 'eu-west-1' },
    structuralKeys: ['ARCH'],
    claimDependencyMap: { 'claim-1': ['REGION'] },
  });
}

/** A fresh session variable. */
export function testVariable(name = 'TASK_ID', value = 'task-42'): SessionVariable {
  return { name, value, freshness: 'FRESH_GENERATED', sourceEpoch: 1 };
}

/** A verified-inherited session variable carrying a freshness probe receipt (docs/guard.md). */
export function testReceiptVariable(
  name = 'TARGET_RESOURCE_ID',
  value = 'i-0abc',
  sessionId = 'session-0',
  probedAtMs = TEST_NOW_MS - 1000,
): SessionVariable {
  return {
    name,
    value,
    freshness: 'VERIFIED_INHERITED',
    sourceEpoch: 1,
    receipt: { probe: 'ec2:DescribeInstances', observedValueDigest: valueDigest(value), sessionId, probedAtMs },
  };
}

/** A valid {@link SealInput} for record `index` of `lineageId`; `overrides` replace fields. */
export function sealInput(index = 0, overrides: Partial<SealInput> = {}): SealInput {
  return {
    lineageId: TEST_LINEAGE_ID,
    residualId: `residual-${index}`,
    sessionId: `session-${index}`,
    payload: { conclusion: `finding ${index}`, index } as JsonValue,
    generationEpoch: 1,
    authority: AuthorityValues.OPERATIONAL as Authority,
    manifest: testManifest(),
    verdictDigest: hashCanonical(HashDomain.VERDICT, { v: 1, index }),
    variablesUsed: [testVariable()],
    ...overrides,
  };
}

/** Options of {@link buildChain}. */
export interface BuildChainOptions {
  readonly lineageId?: string;
  readonly anchor?: LocalHmacAnchor;
  /** Per-record input overrides (e.g. payloads, authorities, epochs). */
  readonly inputs?: (index: number) => Partial<SealInput>;
  readonly nowMs?: number;
}

/**
 * Seals `length` records into one valid chain (seq 0 … length − 1) with {@link sealRecord}.
 * Returns the records, the final head (null when empty) and the anchor used.
 */
export async function buildChain(
  length: number,
  options: BuildChainOptions = {},
): Promise<{ records: SealedRecord[]; head: LineageHead | null; anchor: LocalHmacAnchor }> {
  const anchor = options.anchor ?? testAnchor();
  const lineageId = options.lineageId ?? TEST_LINEAGE_ID;
  const records: SealedRecord[] = [];
  let head: LineageHead | null = null;
  for (let index = 0; index < length; index++) {
    const input = sealInput(index, { lineageId, ...options.inputs?.(index) });
    const record = await sealRecord(input, head, anchor, (options.nowMs ?? TEST_NOW_MS) + index);
    records.push(record);
    head = lineageHeadOf(record);
  }
  return { records, head, anchor };
}

/** Deep copy through JSON, as a store round trip would give (so a test can tamper without touching the original). */
export function cloneRecord<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Re-signs `record` after patching its header and/or bodies, recomputing `payloadHash`,
 * `manifestDigest`, `variablesDigest`, `recordHash` and the MAC with `signer` (`sealedAtMs`
 * stays as sealed unless the patch sets it). With the test key this is what a
 * holder of `kms:GenerateMac` could do; with {@link forgerAnchor} it is a payload-and-hash
 * forgery by someone without the key (docs/sealing.md, "What an HMAC anchor can and cannot prove").
 */
export async function resealRecord(
  record: SealedRecord,
  patch: {
    header?: Partial<RecordHeader>;
    payload?: JsonValue;
    manifest?: SealedDependencyManifest;
    variablesUsed?: SessionVariable[];
  },
  signer: MacAnchor,
): Promise<SealedRecord> {
  const payload = patch.payload === undefined ? record.payload : patch.payload;
  const manifest = patch.manifest ?? record.manifest;
  const variablesUsed = patch.variablesUsed ?? record.variablesUsed;
  const header: RecordHeader = {
    ...record.header,
    payloadHash: payloadHash(payload),
    manifestDigest: manifestDigest(manifest),
    variablesDigest: variablesDigest(variablesUsed),
    ...patch.header,
  };
  const signature = await signer.generateMac(headerBytes(header));
  return {
    ...record,
    header,
    payload,
    manifest,
    variablesUsed,
    sealedAtMs: header.sealedAtMs,
    recordHash: recordHashOf(header),
    anchor: signature,
  };
}

/** An anchor with the test key id but another secret: what an attacker without the key can sign with. */
export function forgerAnchor(): LocalHmacAnchor {
  return testAnchor({ key: new Uint8Array(32).fill(0xa5) });
}

/** `verifyChain` on the test lineage with the test key, options overridable. */
export const verifyTestChain = (records: unknown[], options: Partial<VerifyChainOptions> = {}) =>
  verifyChain(records, { lineageId: TEST_LINEAGE_ID, anchor: testAnchor(), ...options });

/** Element `i` of a list, typed as present (tests index fixtures they built). */
export const at = <T>(list: readonly T[], i: number): T => list[i] as T;

/** Verdict of each record of a verification, in input order. */
export const verdictsOf = (result: Pick<ChainVerification, 'records'>) => result.records.map((r) => r.verdict);
