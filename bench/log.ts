/**
 * Benchmark: the verifiable log (docs/verifiable-log.md). Prints, per lineage length n:
 * the KMS commands triage sends through its adapter (to a counting stand-in for the KMS client),
 * item reads per recall (the triage service on the in-memory store, as the Lambda runs on
 * DynamoDB), recall latency, and the signatures and MACs per sealed record;
 * then inclusion-proof verifications per second against raw SHA-256 in the same run.
 *
 * Targets (docs/verifiable-log.md, "Recall"): at most one KMS call per recall at every n (the public key, once; none
 * warm), item reads growing no faster than log n, at most one `Sign` per FIFO group. The same
 * counts on the deployed emulator stack are asserted by test/integration/verifiable-log.test.ts.
 *
 * Run: `npx tsx bench/log.ts` (RESEAL_BENCH_QUICK=1 stops at 10^4 records).
 */
import { createPublicKey, hash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { ED25519_KEY_SPEC, ED25519_SIGNING_ALGORITHM } from '../adapters/fetch-public-key';
import { KMSNoteVerifierKey } from '../adapters/kms-note-verifier-key';
import { SealerService } from '../functions/sealer/sealer-service';
import { TriageService } from '../functions/triage/triage-service';
import { evaluateWrite } from '../shared/guard/evaluate-write';
import { proveInclusion } from '../shared/log/inclusion-proof';
import { LocalEd25519Signer } from '../shared/log/local-ed25519-signer';
import { sealerKeyName } from '../shared/log/log-names';
import { MemoryMerkleTree } from '../shared/log/memory-tree';
import { leafHash } from '../shared/log/merkle-hash';
import { verifyInclusion } from '../shared/log/verify-inclusion';
import type { AnchorSignature } from '../shared/ports/mac-anchor';
import { FACTORY_NOW_MS, guardPolicy, validWriteRequest } from '../test/helpers/guard-factories';
import { InMemoryLineageStore } from '../test/helpers/in-memory-lineage-store';
import { appendSealed } from '../test/helpers/pipeline-keys';
import { interleavedSamples, median, pairedRatio } from './harness';
import { benchAnchor } from './seal';
import { chainOf } from './verify';

// The lineage of bench/verify.ts's chainOf.
const LINEAGE = 'bench-lineage';
const NOW_MS = Date.UTC(2026, 11, 1);
const ENV = { ARCH: 'arm64', REGION: 'eu-west-1', NODE: '20' };
const signer = new LocalEd25519Signer('reseal/bench-stack', new Uint8Array(32).fill(9));
const quiet = () => {};

/**
 * A stand-in for the KMS client that counts every command by name and answers `GetPublicKey` for
 * the bench's signer, so the recall rows count what the deployed triage would send to KMS (through
 * the same adapter, `KMSNoteVerifierKey`), not what it is supposed to send.
 */
async function countingKms(): Promise<{ send: (command: object) => Promise<unknown>; calls: Map<string, number> }> {
  const raw = Buffer.from(await signer.publicKey());
  const spki = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  }).export({
    type: 'spki',
    format: 'der',
  });
  const calls = new Map<string, number>();
  return {
    calls,
    send: async (command: object) => {
      const name = command.constructor.name.replace(/Command$/, '');
      calls.set(name, (calls.get(name) ?? 0) + 1);
      if (name !== 'GetPublicKey') throw new Error(`triage sent ${name} to KMS`);
      return {
        KeySpec: ED25519_KEY_SPEC,
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: [ED25519_SIGNING_ALGORITHM],
        PublicKey: spki,
      };
    },
  };
}

const RECALLS_PER_SIZE = 40;

/** One row per n: KMS commands, item reads and latency per recall (seq 0 and latest alternately). */
async function recallRows(sizes: readonly number[]): Promise<string[]> {
  const rows: string[] = [];
  for (const n of sizes) {
    const store = new InMemoryLineageStore();
    const records = await chainOf(n);
    // Appended in FIFO-sized runs of 10, each under one signed checkpoint, as the sealer does.
    for (let i = 0; i < n; i += 10) await appendSealed(store, records.slice(i, i + 10), signer);
    // A cold triage per n: a new adapter over a KMS client that counts what it is sent.
    const kms = await countingKms();
    const logKey = new KMSNoteVerifierKey(kms as never, 'bench-log-key', signer.keyName);
    const triage = new TriageService({
      store,
      publisher: { residualSealed: async () => {}, residualRejected: async () => {}, triageCompleted: async () => {} },
      logKey: () => logKey.get(),
      metrics: { count: quiet },
      logger: { appendKeys: quiet, info: quiet, warn: quiet, error: quiet },
      clock: () => NOW_MS,
    });
    const reads: number[] = [];
    const latencies: number[] = [];
    for (let r = 0; r < RECALLS_PER_SIZE; r++) {
      store.itemReads = 0;
      const started = performance.now();
      const target = r % 2 === 0 ? { seq: 0 } : { latest: true as const };
      const result = await triage.handle({ requestId: `req-${n}-${r}`, lineageId: LINEAGE, target, currentEnv: ENV });
      latencies.push(performance.now() - started);
      if (result.kind !== 'COMPLETED' || result.detail.outcome !== 'TRIAGED')
        throw new Error(`recall at n=${n} refused`);
      reads.push(store.itemReads);
    }
    const sent = (name: string) => kms.calls.get(name) ?? 0;
    const macCalls = sent('GenerateMac') + sent('VerifyMac');
    const total = [...kms.calls.values()].reduce((a, b) => a + b, 0);
    rows.push(
      `| ${n.toLocaleString('en-US')} | ${macCalls / RECALLS_PER_SIZE} | ${total / RECALLS_PER_SIZE} (${sent('GetPublicKey')} GetPublicKey in ${RECALLS_PER_SIZE} recalls) | ${median(reads)} | ${Math.log2(n).toFixed(1)} | ${(median(latencies) * 1000).toFixed(0)} µs |`,
    );
  }
  return rows;
}

/** Inclusion proofs verified per second at n leaves, against raw SHA-256 of 64 bytes in the same rounds. */
async function proofRate(n: number): Promise<string> {
  const tree = new MemoryMerkleTree();
  for (let i = 0; i < n; i++) tree.append(Buffer.from(hash('sha256', `leaf-${i}`, 'buffer')));
  const root = tree.root();
  const index = Math.floor(n / 3);
  const proof = await proveInclusion(index, n, tree.nodes);
  const leaf = leafHash(Buffer.from(hash('sha256', `leaf-${index}`, 'buffer')));
  const block = Buffer.alloc(64, 7);
  const samples = await interleavedSamples({
    verify: () => {
      if (!verifyInclusion({ leafIndex: index, treeSize: n, leafHash: leaf, proof, rootHash: root }))
        throw new Error('bad');
    },
    sha256: () => hash('sha256', block, 'buffer'),
  });
  const perSecond = (ms: number) => Math.round(1000 / ms).toLocaleString('en-US');
  return `| ${n.toLocaleString('en-US')} | ${proof.length} | ${perSecond(median(samples.verify))} | ${perSecond(median(samples.sha256))} | ${pairedRatio(samples.verify, samples.sha256).toFixed(1)}× |`;
}

/** KMS calls the sealer makes per sealed record, counted over FIFO groups of 10 writes. */
async function sealerCalls(records: number): Promise<string> {
  const store = new InMemoryLineageStore();
  const anchor = benchAnchor();
  let macs = 0;
  let verifies = 0;
  let signs = 0;
  const countingAnchor = {
    keyId: anchor.keyId,
    generateMac: (message: Uint8Array) => {
      macs++;
      return anchor.generateMac(message);
    },
    verifyMac: (message: Uint8Array, signature: AnchorSignature) => {
      verifies++;
      return anchor.verifyMac(message, signature);
    },
  };
  const countingSigner = {
    keyName: signer.keyName,
    publicKey: () => signer.publicKey(),
    sign: (message: Uint8Array) => {
      signs++;
      return signer.sign(message);
    },
  };
  const sealer = new SealerService({
    store,
    publisher: { residualSealed: async () => {}, residualRejected: async () => {}, triageCompleted: async () => {} },
    anchor: countingAnchor,
    signer: countingSigner,
    refusalSigner: new LocalEd25519Signer(sealerKeyName(signer.keyName), new Uint8Array(32).fill(8)),
    metrics: { count: quiet },
    logger: { appendKeys: quiet, info: quiet, warn: quiet, error: quiet },
    clock: () => FACTORY_NOW_MS + 1_000,
  });
  for (let from = 0; from < records; from += 10) {
    const group = Array.from({ length: 10 }, (_, k) => {
      const request = validWriteRequest({ lineageId: LINEAGE, residualId: `r-${from + k}` });
      const body = {
        formatVersion: 1,
        request,
        verdict: evaluateWrite(request, guardPolicy()),
        acceptedAtMs: FACTORY_NOW_MS,
      };
      return { messageId: `m-${from + k}`, body: JSON.stringify(body), sentAtMs: FACTORY_NOW_MS + 1 };
    });
    const outcomes = await sealer.handleGroup(group);
    if (outcomes.some((o) => o.kind !== 'SEALED')) throw new Error('bench write not sealed');
  }
  return `Per sealed record (${records} records in FIFO groups of 10): ${(macs / records).toFixed(2)} \`GenerateMac\`, ${(signs / records).toFixed(2)} \`Sign\` (${signs} signatures for ${records / 10} groups), ${(verifies / records).toFixed(2)} \`VerifyMac\`.`;
}

/** The log benchmark's markdown. */
export async function runLogBench(): Promise<string> {
  const quick = process.env.RESEAL_BENCH_QUICK === '1';
  const sizes = quick ? [100, 1_000, 10_000] : [100, 1_000, 10_000, 100_000];
  const out = [
    '| records n | MAC calls per recall | KMS calls per recall | item reads per recall (median) | log2 n | latency (median) |',
    '|---:|---:|---|---:|---:|---:|',
    ...(await recallRows(sizes)),
    '',
    await sealerCalls(200),
    '',
    '| tree size | proof hashes | inclusion proofs verified / s | SHA-256 (64 B) / s | proof ÷ SHA-256 |',
    '|---:|---:|---:|---:|---:|',
    await proofRate(100_000),
  ];
  return out.join('\n');
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) console.log(await runLogBench());
