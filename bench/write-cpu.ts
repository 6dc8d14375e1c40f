/**
 * Benchmark: the guard's and the sealer's CPU per write, in-process, on the emulator bench's
 * sparse write (bench/stack/stack-bench.ts `benchWrite`: a 1 KiB payload, a 100-key manifest with
 * ten claims on ten keys each, signed by the bench writer; its `residual-writes` body is the
 * request's canonical JSON, about 12 KB).
 *
 * - guard: {@link GuardService.screen} of that body (strict JSON parse, schema, tenant and
 *   signature checks, the stale-state rules) with ports that do nothing: the success path makes
 *   no AWS call, so this is the guard Lambda's work per message but the batch's one send.
 * - Ed25519 check alone: `crypto.verify` of the writer signature over its digest, the key decoded
 *   once: the part of the guard no format change short of dropping the signature could cut.
 * - sealer, step 1: the sealer's parse and re-check of the `seal-requests` body the guard
 *   forwards (strict JSON parse, schema, guard re-run, signature), through the same functions
 *   `SealerService` calls, in the same order.
 * - sealer, one write: {@link SealerService.handle} of that body, a lineage's first write, with a
 *   store that keeps nothing, a local HMAC anchor and local signers (no KMS round trip); one
 *   service seals the first writes of 64 lineages in turn, as a warm container would.
 *
 * Each is printed in ms of CPU per message beside a floor timed in the same interleaved rounds
 * (bench/harness.ts): `JSON.parse` of the same body. Before those, the first calls of the
 * process are timed one by one (wall clock): a Lambda that handles a few messages per container
 * runs them before the JIT has optimized anything.
 *
 * Run: `npm run bench:cpu`. Profile: `node --cpu-prof --import tsx bench/write-cpu.ts --loop guard`
 * (or `sealerPrepare`, `sealer`): that operation alone for 5 s before the figures.
 */
import { createPublicKey, verify } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { soleWriterPolicy } from '../client/sole-writer-policy';
import { GuardService } from '../functions/guard/guard-service';
import { checkSealRequest } from '../functions/sealer/seal-request-check';
import { parseSealRequest } from '../functions/sealer/seal-request-parse';
import { SealerService } from '../functions/sealer/sealer-service';
import { requestSigningDigest } from '../shared/authorship/request-signing-digest';
import { signWriteRequest, writeSignatureProblem } from '../shared/authorship/write-signature';
import { canonicalJson } from '../shared/canonical/canonical-json';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { LocalEd25519Signer } from '../shared/log/local-ed25519-signer';
import { guardKeyName, sealerKeyName } from '../shared/log/log-names';
import type { SealRequest } from '../shared/pipeline/seal-request';
import type { ResidualWriteRequest } from '../shared/write/write-request';
import { interleavedSamples, median, pairedRatio } from './harness';
import { nullEventPublisher, nullLineageStore, unusedPort } from './null-ports';
import { benchAnchor } from './seal';
import { BENCH_WRITER, benchLineageId, benchWrite } from './stack/stack-bench';

const NOW_MS = Date.UTC(2026, 11, 6, 18);
/** Guard calls timed one by one at the start of the process. */
const FIRST_CALLS = Number(process.env.FIRST_CALLS ?? 20);
/** Lineages whose first writes one sealer service seals before the next service takes over. */
const SEALER_LINEAGES = 64;
const quiet = () => {};
const logger = { appendKeys: quiet, info: quiet, warn: quiet, error: quiet };

/** The bench's sparse write, signed: the `first` write of its lineage carries the inception policy. */
async function signedWrite(first: boolean, label = 'cpu-0'): Promise<ResidualWriteRequest> {
  const lineageId = benchLineageId(label);
  const unsigned = benchWrite(lineageId, `${lineageId}-w${first ? 0 : 1}`, NOW_MS);
  const inception = first ? { policy: soleWriterPolicy(BENCH_WRITER) } : {};
  return signWriteRequest({ ...unsigned, ...inception }, BENCH_WRITER, NOW_MS);
}

/** One figure: median ms per message, the floor's, and their paired ratio. */
interface Row {
  readonly name: string;
  readonly ms: number;
  readonly floorMs: number;
  readonly ratio: number;
}

const row = (name: string, measured: number[], floor: number[]): Row => ({
  name,
  ms: median(measured),
  floorMs: median(floor),
  ratio: pairedRatio(measured, floor),
});

/** Times the guard and the sealer on the bench write; returns one row per figure. */
export async function runWriteCpuBench(loop?: {
  readonly name: 'guard' | 'sealerPrepare' | 'sealer';
  readonly ms: number;
}): Promise<{ rows: Row[]; bytes: { guard: number; sealer: number }; firstCalls: number[] }> {
  // The guard: a later write of its lineage (most sparse writes), its body as the client sends it.
  const later = await signedWrite(false);
  const guardBody = canonicalJson(later);
  const guard = new GuardService({
    // The success path reads no store, publishes nothing and sends nothing until the batch's forward.
    store: nullLineageStore,
    publisher: nullEventPublisher,
    queue: { enqueue: unusedPort, enqueueBatch: unusedPort },
    signer: new LocalEd25519Signer(guardKeyName('reseal/bench-stack'), new Uint8Array(32).fill(9)),
    logName: 'reseal/bench-stack',
    metrics: { count: quiet },
    logger,
    clock: () => NOW_MS + 50,
    maxReceiptAgeSeconds: 900,
  });
  const guardMessage = { messageId: 'bench-guard', body: guardBody, sentAtMs: NOW_MS + 10, senderId: 'AIDABENCH' };
  const firstCalls: number[] = [];
  for (let i = 0; i < FIRST_CALLS; i++) {
    const started = performance.now();
    const screened = await guard.screen(guardMessage);
    firstCalls.push(performance.now() - started);
    if (!('accepted' in screened)) throw new Error(`bench write refused by the guard: ${JSON.stringify(screened)}`);
  }
  // The writer signature's check alone, its key decoded once.
  const signingDigest = requestSigningDigest(later, later.writer);
  const writerKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(later.writer.publicKey, 'base64').toString('base64url') },
    format: 'jwk',
  });
  const writerSignature = Buffer.from(later.writer.signature, 'base64');
  const ed25519 = () => {
    if (!verify(null, signingDigest, writerKey, writerSignature)) throw new Error('bench signature does not verify');
  };

  // The sealer: first writes of their lineages (the store keeps nothing), as the guard forwards them.
  const sealerMessages: { messageId: string; body: string; sentAtMs: number }[] = [];
  for (let i = 0; i < SEALER_LINEAGES; i++) {
    const first = await signedWrite(true, `cpu-${i + 1}`);
    const screened = await guard.screen({ ...guardMessage, body: canonicalJson(first) });
    if (!('accepted' in screened)) throw new Error('bench first write refused by the guard');
    const sealRequest: SealRequest = screened.accepted.sealRequest;
    sealerMessages.push({ messageId: `bench-sealer-${i}`, body: JSON.stringify(sealRequest), sentAtMs: NOW_MS + 100 });
  }
  const sealerMessage = sealerMessages[0] as (typeof sealerMessages)[number];
  const sealerBody = sealerMessage.body;
  const anchor = benchAnchor();
  const signer = new LocalEd25519Signer('reseal/bench-stack', new Uint8Array(32).fill(7));
  const refusalSigner = new LocalEd25519Signer(sealerKeyName('reseal/bench-stack'), new Uint8Array(32).fill(8));
  const newSealer = () =>
    new SealerService({
      store: nullLineageStore,
      publisher: nullEventPublisher,
      anchor,
      signer,
      refusalSigner,
      metrics: { count: quiet },
      logger,
      clock: () => NOW_MS + 200,
    });
  // A service seals each lineage's first write once, then a new one takes over: a warm sealer
  // would take a second first write of a lineage for a rollback (the store keeps nothing).
  let sealer = newSealer();
  let next = 0;
  const sealOne = async () => {
    if (next === sealerMessages.length) {
      sealer = newSealer();
      next = 0;
    }
    const outcome = await sealer.handle(sealerMessages[next++] as (typeof sealerMessages)[number]);
    if (outcome.kind !== 'SEALED') throw new Error(`bench seal request was ${outcome.kind}`);
  };
  await sealOne();
  // Step 1 alone, as SealerService's #prepare runs it.
  const policy = { nowMs: NOW_MS + 200, maxReceiptAgeSeconds: 900 };
  const prepare = () => {
    const parsed = parseSealRequest(parseStrictJson(sealerBody, 'seal request'));
    if ('detail' in parsed) throw new Error(parsed.detail);
    if (checkSealRequest(parsed.request, { ...policy, sentAtMs: sealerMessage.sentAtMs })) throw new Error('refused');
    if (writeSignatureProblem(parsed.request.request, parsed.request.acceptedAtMs, parsed.seal))
      throw new Error('bad sig');
  };
  prepare();

  const operations = {
    guard: () => guard.screen(guardMessage),
    guardFloor: () => JSON.parse(guardBody),
    ed25519,
    sealerPrepare: prepare,
    sealer: sealOne,
    sealerFloor: () => JSON.parse(sealerBody),
  };
  if (loop !== undefined) {
    // Profiling: the one operation alone, for `loop.ms` of wall time.
    const op: () => unknown = operations[loop.name];
    const started = performance.now();
    while (performance.now() - started < loop.ms) await op();
  }
  const samples = await interleavedSamples(operations, {
    budgetMs: Number(process.env.RESEAL_BENCH_BUDGET_MS ?? 4_000),
    minRounds: 15,
  });
  return {
    rows: [
      row('guard: screen one message', samples.guard, samples.guardFloor),
      row('Ed25519 check of the writer signature alone', samples.ed25519, samples.guardFloor),
      row('sealer: step 1 (parse, schema, guard re-run, signature)', samples.sealerPrepare, samples.sealerFloor),
      row('sealer: one write, a run of its own (local anchor and signers)', samples.sealer, samples.sealerFloor),
    ],
    bytes: { guard: Buffer.byteLength(guardBody), sealer: Buffer.byteLength(sealerBody) },
    firstCalls,
  };
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  // `--loop guard|sealerPrepare|sealer`: that operation alone for 5 s first, for `--cpu-prof`.
  const at = process.argv.indexOf('--loop');
  const name = at < 0 ? undefined : process.argv[at + 1];
  if (name !== undefined && name !== 'guard' && name !== 'sealerPrepare' && name !== 'sealer')
    throw new Error(`--loop takes guard, sealerPrepare or sealer, got ${name}`);
  const { rows, bytes, firstCalls } = await runWriteCpuBench(name === undefined ? undefined : { name, ms: 5_000 });
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(
    `Guard, first calls of the process (wall ms, the writes signed before them): call 1 ${firstCalls[0]?.toFixed(2)}, ` +
      `calls 2–10 ${mean(firstCalls.slice(1, 10)).toFixed(2)} each, calls 11–${FIRST_CALLS} ${mean(firstCalls.slice(10)).toFixed(2)} each.`,
  );
  console.log(
    `Bodies: residual-writes ${bytes.guard} bytes, seal-requests ${bytes.sealer} bytes; floor: JSON.parse of the same body.\n`,
  );
  console.log('| case (CPU, median of interleaved rounds) | ms per message | floor, ms | ÷ floor |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows)
    console.log(`| ${r.name} | ${r.ms.toFixed(3)} | ${r.floorMs.toFixed(3)} | ${r.ratio.toFixed(1)}× |`);
}
