/**
 * Benchmark: sealing against its floor (see bench/floors.ts).
 *
 * - Seal at 4 KiB: {@link sealRecord} of a 4 KiB payload (RFC 8785 size) with a small manifest
 *   and a {@link LocalHmacAnchor}: validation, canonicalization, payload / manifest / variables /
 *   header hashes, HMAC-SHA-256.
 * - Sealer CPU per write: {@link SealerService.handle} of one `seal-requests` body (strict JSON
 *   parse, schema, guard re-run, seal) carrying the same payload and a 1,000-key manifest, with
 *   ports that do nothing (no store, events or logs: only the sealer's own CPU is timed).
 *
 * KMS round trips (milliseconds) are not included. Run: `npx tsx bench/seal.ts`.
 */

import { generateKeyPairSync } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { SealerService } from '../functions/sealer/sealer-service';
import type { JsonValue } from '../shared/canonical/canonical-json';
import { evaluateWrite } from '../shared/guard/evaluate-write';
import { LocalEd25519Signer } from '../shared/log/local-ed25519-signer';
import { sealerKeyName } from '../shared/log/log-names';
import type { SealRequest } from '../shared/pipeline/seal-request';
import { Authority } from '../shared/schemas/authority';
import { LocalHmacAnchor } from '../shared/seal/local-hmac-anchor';
import type { SealInput } from '../shared/seal/seal-input';
import { sealRecord } from '../shared/seal/seal-record';
import type { SealedRecord } from '../shared/seal/sealed-record';
import { buildManifest } from '../shared/triage/build-manifest';
import type { SealedDependencyManifest } from '../shared/triage/sealed-dependency-manifest';
import { FACTORY_NOW_MS, guardPolicy, validWriteRequest } from '../test/helpers/guard-factories';
import { libraryCanonical, type SealerFormatInput, type SealParts, sealerFormatFloor, sealFloor } from './floors';
import { interleavedSamples, median, pairedRatio } from './harness';
import { nullEventPublisher, nullLineageStore } from './null-ports';
import { type Figure, figureRow } from './report';

const NOW_MS = Date.UTC(2026, 9, 26);
/** The HMAC key of every bench anchor. */
export const BENCH_KEY = Uint8Array.from({ length: 32 }, (_, i) => i);
/** An anchor over {@link BENCH_KEY}. */
export const benchAnchor = () => new LocalHmacAnchor({ keyId: 'bench-key', key: BENCH_KEY });

/** A payload whose RFC 8785 form is exactly `bytes` long (ASCII): findings, then padding text. */
export function payloadOf(bytes: number): JsonValue {
  const findings: JsonValue[] = [];
  const build = (pad: string): JsonValue => ({ findings, pad, summary: 'sealed residual' });
  // Keys are written in sorted order, so JSON.stringify gives the canonical length.
  const size = (value: JsonValue) => JSON.stringify(value).length;
  while (size(build('')) + 80 < bytes) {
    findings.push({ id: `f-${findings.length}`, note: 'probe passed on arm64', ok: true, score: 0.5 });
  }
  const payload = build('x'.repeat(bytes - size(build(''))));
  if (size(payload) !== bytes) throw new Error(`payload is ${size(payload)} bytes, wanted ${bytes}`);
  return payload;
}

/** A manifest over `keys` environment keys, one structural key and one claim. */
export function manifestOf(keys: number): SealedDependencyManifest {
  const env: Record<string, string> = {};
  for (let i = 0; i < keys; i++) env[`KEY_${String(i).padStart(6, '0')}`] = `value-${i}`;
  return buildManifest({ env, structuralKeys: ['KEY_000000'], claimDependencyMap: { 'claim-1': ['KEY_000001'] } });
}

/** The bodies a sealed record hashes, for the floor. */
export const partsOf = (record: SealedRecord): SealParts => ({
  payload: record.payload,
  manifest: record.manifest,
  variablesUsed: record.variablesUsed,
  header: record.header,
});

const quiet = () => {};

/** Seal at 4 KiB against its floor. */
async function sealFigure(): Promise<Figure> {
  const anchor = benchAnchor();
  const input: SealInput = {
    lineageId: 'bench-lineage',
    residualId: 'residual-0',
    sessionId: 'session-0',
    payload: payloadOf(4_096),
    generationEpoch: 1,
    authority: Authority.OPERATIONAL,
    manifest: buildManifest({
      env: { ARCH: 'arm64', REGION: 'eu-west-1', NODE: '20' },
      structuralKeys: ['ARCH'],
      claimDependencyMap: { 'claim-1': ['REGION'] },
    }),
    verdictDigest: 'a'.repeat(64),
    variablesUsed: [{ name: 'TASK', value: 'bench', freshness: 'FRESH_GENERATED', sourceEpoch: 1 }],
  };
  const parts = partsOf(await sealRecord(input, null, anchor, NOW_MS));
  const samples = await interleavedSamples({
    measured: () => sealRecord(input, null, anchor, NOW_MS),
    floor: () => sealFloor(parts, BENCH_KEY),
    library: () => sealFloor(parts, BENCH_KEY, libraryCanonical),
  });
  return { name: 'seal, 4 KiB payload', unit: 'µs', scale: 1e3, target: 2, samples };
}

/** Sealer CPU of one write carrying a 1,000-key manifest, against the same floor. */
async function sealerFigure(): Promise<{ figure: Figure; note: string }> {
  const anchor = benchAnchor();
  const request = validWriteRequest({ payload: payloadOf(4_096), manifest: manifestOf(1_000) });
  const sealRequest: SealRequest = {
    formatVersion: 1,
    request,
    verdict: evaluateWrite(request, guardPolicy()),
    acceptedAtMs: FACTORY_NOW_MS,
  };
  const message = { messageId: 'bench-1', body: JSON.stringify(sealRequest), sentAtMs: FACTORY_NOW_MS + 1 };
  let sealed: SealedRecord | null = null;
  let checkpointNote = '';
  const signer = new LocalEd25519Signer('reseal/bench-stack', new Uint8Array(32).fill(7));
  // A new service per write: the store keeps nothing, so a warm sealer would take the second
  // write for a rollback of the first (SignedHeads). Each write is the first of its lineage.
  const newService = () =>
    new SealerService({
      store: {
        ...nullLineageStore,
        moveHead: async (batch) => {
          sealed = batch.entries[0]?.record ?? null;
          checkpointNote = batch.checkpoint ?? '';
        },
      },
      publisher: nullEventPublisher,
      anchor,
      // The log key: one Ed25519 signature per run of writes (here, per write: a run of one).
      signer,
      // The sealer key signs refusals only: none here.
      refusalSigner: new LocalEd25519Signer(sealerKeyName('reseal/bench-stack'), new Uint8Array(32).fill(8)),
      metrics: { count: quiet },
      logger: { appendKeys: quiet, info: quiet, warn: quiet, error: quiet },
      clock: () => FACTORY_NOW_MS + 1_000,
    });
  const service = newService();
  const outcome = await service.handle(message);
  if (outcome.kind !== 'SEALED' || sealed === null) throw new Error(`bench seal request was ${outcome.kind}`);
  const parts = partsOf(sealed);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const format: SealerFormatInput = {
    body: message.body,
    manifest: (sealed as SealedRecord).manifest,
    checkpointText: checkpointNote.slice(0, checkpointNote.indexOf('\n\n') + 1),
    signingKey: privateKey,
    verifyingKey: publicKey,
  };
  const { format: formatSamples, ...samples } = await interleavedSamples({
    measured: () => newService().handle(message),
    floor: () => sealFloor(parts, BENCH_KEY),
    library: () => sealFloor(parts, BENCH_KEY, libraryCanonical),
    format: () => sealerFormatFloor(parts, format, BENCH_KEY),
  });
  const figure: Figure = {
    name: 'sealer CPU per write, 1,000-key manifest',
    unit: 'µs',
    scale: 1e3,
    target: 2,
    samples,
  };
  const formatFloor = median(formatSamples) * 1e3;
  const note =
    `Additional line, not the target's measure: the sealer's format floor (bench/floors.ts: the seal floor plus ` +
    `\`JSON.parse\` of the ${(message.body.length / 1024).toFixed(0)} KiB body, the manifest's second SHA-256 and one ` +
    `Ed25519 signature with its check) is ${formatFloor.toFixed(0)} µs, ${pairedRatio(formatSamples, samples.floor).toFixed(2)}× the seal floor; ` +
    `the sealer is ${pairedRatio(samples.measured, formatSamples).toFixed(2)}× that.`;
  return { figure, note };
}

/** Runs both seal figures; returns their table rows, and a line on the sealer's format floor. */
export async function runSealBench(): Promise<{ rows: string[]; notes: string[] }> {
  const seal = figureRow(await sealFigure());
  const sealer = await sealerFigure();
  return { rows: [seal, figureRow(sealer.figure)], notes: [sealer.note] };
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const { FIGURE_HEADER } = await import('./report');
  const { rows, notes } = await runSealBench();
  console.log([...FIGURE_HEADER, ...rows, '', ...notes].join('\n'));
}
