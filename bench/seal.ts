/**
 * Benchmark: sealing (seed 003) against raw SHA-256 of the same bytes.
 *
 * For payloads of 256 B, 4 KiB and 64 KiB (RFC 8785 canonical UTF-8 size) it times
 * {@link sealRecord} with a {@link LocalHmacAnchor} (validation, canonicalization, payload and
 * manifest hashes, header hash, HMAC-SHA-256) and {@link verifyChain} on a one-record chain,
 * next to one plain node:crypto SHA-256 over the canonical payload bytes. Throughput is in
 * payload MB/s (10^6 bytes) and operations per second; the ratio says how many raw hashes one
 * seal costs. KMS round trips (milliseconds each) are not included. Timings are never asserted.
 *
 * Run: `npx tsx bench/seal.ts` (about 10 s).
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { canonicalBytes, type JsonValue } from '../shared/canonical/canonical-json';
import { Authority } from '../shared/schemas/primitives';
import { verifyChain } from '../shared/seal/lineage-verifier';
import { LocalHmacAnchor } from '../shared/seal/local-hmac-anchor';
import { type SealInput, sealRecord } from '../shared/seal/residual-sealer';
import { buildManifest } from '../shared/triage/manifest';

const SIZES = [256, 4_096, 65_536] as const;
/** Wall-clock budget per measurement, after a warm-up of the same length / 4. */
const BUDGET_MS = 900;
const NOW_MS = Date.UTC(2026, 9, 26);

/** A payload whose canonical form is exactly `bytes` long: findings, then padding text. */
function payloadOf(bytes: number): JsonValue {
  const findings: JsonValue[] = [];
  const size = (value: JsonValue) => canonicalBytes(value).byteLength;
  const build = (pad: string): JsonValue => ({ findings, pad, summary: 'sealed residual' });
  while (size(build('')) + 80 < bytes) {
    findings.push({ id: `f-${findings.length}`, note: 'probe passed on arm64', ok: true, score: 0.5 });
  }
  const payload = build('x'.repeat(bytes - size(build(''))));
  if (size(payload) !== bytes) throw new Error(`payload is ${size(payload)} bytes, wanted ${bytes}`);
  return payload;
}

/** Runs `op` repeatedly for `budgetMs` (after a warm-up) and returns operations per second. */
async function opsPerSecond(op: () => unknown, budgetMs = BUDGET_MS): Promise<number> {
  const run = async (ms: number) => {
    let count = 0;
    const started = performance.now();
    let elapsed = 0;
    while (elapsed < ms) {
      for (let i = 0; i < 8; i++) await op();
      count += 8;
      elapsed = performance.now() - started;
    }
    return (count * 1000) / elapsed;
  };
  await run(budgetMs / 4);
  return run(budgetMs);
}

const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * Runs the seal benchmark and returns a markdown table: per payload size, seal and verify
 * throughput next to raw SHA-256 of the canonical payload, and the seal / SHA-256 time ratio.
 */
export async function runSealBench(): Promise<string> {
  const anchor = new LocalHmacAnchor({ keyId: 'bench-key', key: Uint8Array.from({ length: 32 }, (_, i) => i) });
  const manifest = buildManifest({
    env: { ARCH: 'arm64', REGION: 'eu-west-1', NODE: '20' },
    structuralKeys: ['ARCH'],
    claimDependencyMap: { 'claim-1': ['REGION'] },
  });
  const rows = [
    '| payload | seal ops/s | seal MB/s | verify ops/s | SHA-256 ops/s | SHA-256 MB/s | seal ÷ SHA-256 time |',
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const bytes of SIZES) {
    const payload = payloadOf(bytes);
    const message = canonicalBytes(payload);
    const input: SealInput = {
      lineageId: 'bench-lineage',
      residualId: 'residual-0',
      sessionId: 'session-0',
      payload,
      generationEpoch: 1,
      authority: Authority.OPERATIONAL,
      manifest,
      verdictDigest: 'a'.repeat(64),
      variablesUsed: [{ name: 'TASK', value: 'bench', freshness: 'FRESH_GENERATED', sourceEpoch: 1 }],
    };
    const record = await sealRecord(input, null, anchor, NOW_MS);
    const seal = await opsPerSecond(() => sealRecord(input, null, anchor, NOW_MS));
    const verify = await opsPerSecond(async () => {
      const result = await verifyChain([record], { lineageId: 'bench-lineage', anchor });
      if (result.verdict !== 'VERIFIED_INTACT') throw new Error(`bench record did not verify: ${result.verdict}`);
    });
    const sha = await opsPerSecond(() => createHash('sha256').update(message).digest());
    const mb = (ops: number) => (ops * bytes) / 1e6;
    const size = bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`;
    rows.push(
      `| ${size} | ${fmt(seal, 0)} | ${fmt(mb(seal))} | ${fmt(verify, 0)} | ${fmt(sha, 0)} | ${fmt(mb(sha))} | ${fmt(sha / seal)}× |`,
    );
  }
  return rows.join('\n');
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const started = performance.now();
  console.log(await runSealBench());
  console.log(`\nNode ${process.version}, ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
