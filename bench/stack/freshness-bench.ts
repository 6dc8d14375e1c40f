/**
 * The freshness scenario of the emulator bench (docs/deployment-log.md, "Freshness window and
 * interval"; `npm run bench:freshness`): writes at a fixed arrival rate, each followed until it is
 * **proven** (the client's `proveFreshness`: the record's residual id is in the index under the
 * published, cosigned deployment checkpoint), with every KMS `Sign` counted by signer
 * (bench/stack/sign-tally.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import type { FreshnessPolicy } from '../../client/freshness-policy';
import { ResealClient } from '../../client/reseal-client';
import { clientOutputsFrom, type StackOutputs } from '../../client/stack-outputs';
import type { IndexNodeStore, IndexTile } from '../../shared/ports/index-node-store';
import { type Signer, type SignTally, signsSince } from './sign-tally';
import { BENCH_WRITER, benchWrite } from './stack-bench';
import { quantile } from './stack-report';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * An {@link IndexNodeStore} that keeps every tile it has read. Index tiles are content-addressed
 * and re-hashed on every read (docs/deployment-log.md, "Storage"), so a kept tile is the tile:
 * the bench's observer, which proves every write of the run, reads each tile once instead of once
 * per write, and does not load the emulator it measures.
 */
export class KeptIndexNodeStore implements IndexNodeStore {
  readonly #inner: IndexNodeStore;
  readonly #kept = new Map<string, Uint8Array>();

  constructor(inner: IndexNodeStore) {
    this.#inner = inner;
  }

  get tileLevels(): number {
    return this.#inner.tileLevels;
  }

  async getTiles(hashes: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    const hex = hashes.map((h) => Buffer.from(h).toString('hex'));
    const missing = hashes.filter((_, i) => !this.#kept.has(hex[i] as string));
    if (missing.length > 0) {
      const read = await this.#inner.getTiles(missing);
      missing.forEach((h, i) => {
        const node = read[i];
        if (node) this.#kept.set(Buffer.from(h).toString('hex'), node);
      });
    }
    return hex.map((h) => this.#kept.get(h));
  }

  putTiles(tiles: readonly IndexTile[]): Promise<void> {
    return this.#inner.putTiles(tiles);
  }
}

/** The client that publishes and proves the scenario's writes, under `policy` (the witnessed one). */
export function freshnessClient(outputs: StackOutputs, endpoint: string, policy: FreshnessPolicy): ResealClient {
  const config = { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
  const dynamodb = new DynamoDBClient(config);
  return new ResealClient(clientOutputsFrom({ ...outputs }), {
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: false }),
    eventBridge: new EventBridgeClient(config),
    dynamodb,
    kms: new KMSClient(config),
    writer: BENCH_WRITER,
    deploymentLog: new DynamoDBDeploymentLogStore(dynamodb, outputs.TableName),
    indexNodes: new KeptIndexNodeStore(new DynamoDBIndexNodeStore(dynamodb, outputs.TableName)),
    policy,
  });
}

/** The scenario: `lineages` lineages, one write each per `periodMs`, for `seconds`. */
export interface FreshnessPlan {
  readonly lineages: readonly string[];
  readonly seconds: number;
  /** Per lineage. @default 1000 (1 write/s) */
  readonly periodMs?: number;
  /** How long a write may take to be proven before the run fails, ms. @default 300_000 */
  readonly timeoutMs?: number;
  /** How often the observer reads the deployment head, ms. @default 100 */
  readonly pollMs?: number;
}

/** What the scenario measured. */
export interface FreshnessMeasured {
  readonly writes: number;
  /** From the first publish to the last write proven, seconds. */
  readonly seconds: number;
  /** From the first publish to the last, seconds: the arrival rate reached is `writes / publishSeconds`. */
  readonly publishSeconds: number;
  /** The plan's arrival rate: lineages × writes per second each. */
  readonly nominalWritesPerSecond: number;
  /** Writes published but not proven when the time-out ended the run (0 when every write was proven). */
  readonly unproven: number;
  /** Publish → PROVEN of each write, ms (upper bounds: the time the observer's proof completed). */
  readonly provenMs: readonly number[];
  /** `Sign` calls by signer from the first publish to the last proof. */
  readonly signs: ReadonlyMap<Signer, number>;
  /** Distinct published deployment checkpoints the observer saw (each with its size). */
  readonly publishedSizes: readonly number[];
}

/**
 * Runs the plan: publishes on schedule (lineage `i` at `i × period / lineages` into each period),
 * and after each change of the head's published note proves every write still pending with
 * `proveFreshness` (8 at a time). A write is proven when the chain is `PROVEN` with its residual
 * id's entry.
 *
 * A run that reaches `timeoutMs` after its last scheduled publish stops publishing and reports
 * the writes left unproven (`unproven`).
 *
 * @throws {Error} when a publish or a proof read fails
 */
export async function measureFreshness(
  client: ResealClient,
  deployment: Pick<DynamoDBDeploymentLogStore, 'readHead'>,
  signs: SignTally | null,
  plan: FreshnessPlan,
): Promise<FreshnessMeasured> {
  const periodMs = plan.periodMs ?? 1000;
  const timeoutMs = plan.timeoutMs ?? 300_000;
  const schedule = plan.lineages
    .flatMap((lineageId, i) =>
      Array.from({ length: plan.seconds * (1000 / periodMs) }, (_, k) => ({
        lineageId,
        residualId: `${lineageId}-f${k}`,
        atMs: k * periodMs + (i * periodMs) / plan.lineages.length,
      })),
    )
    .sort((a, b) => a.atMs - b.atMs);
  const before = signs?.snapshot() ?? new Map();
  const pending = new Map<string, { lineageId: string; residualId: string; publishedAtMs: number }>();
  const provenMs: number[] = [];
  const publishedSizes: number[] = [];
  let publishing = true;
  let failed = false;
  let timedOut = false;
  const started = Date.now();

  const observer = (async () => {
    let last: string | null = null;
    while (publishing || pending.size > 0) {
      if (Date.now() - started > plan.seconds * 1000 + timeoutMs) {
        // Reported, not thrown: the figures of what was proven still stand, beside the count left.
        publishing = false;
        timedOut = true;
        return;
      }
      const head = await deployment.readHead();
      const published = head?.published ?? null;
      if (published === null || published === last) {
        await sleep(plan.pollMs ?? 100);
        continue;
      }
      last = published;
      publishedSizes.push(head?.size ?? 0);
      const waiting = [...pending.values()];
      let next = 0;
      const worker = async () => {
        while (next < waiting.length) {
          const write = waiting[next++] as (typeof waiting)[number];
          const { chain } = await client.proveFreshness({ lineageId: write.lineageId, residualId: write.residualId });
          if (chain.kind === 'PROVEN' && chain.residual !== null) {
            provenMs.push(Date.now() - write.publishedAtMs);
            pending.delete(write.residualId);
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    }
  })();
  // A failed observer stops the publishing, and is rethrown below (never an unhandled rejection).
  observer.catch(() => {
    failed = true;
  });

  let publishSeconds = 0;
  let sentCount = 0;
  // One publisher per lineage, all at once: a lineage's writes are sent in its order, each at its
  // time or as soon as its previous send returned, so one slow send delays its lineage only and
  // the arrival rate is the plan's, not one send's round trip.
  const byLineage = new Map<string, typeof schedule>();
  for (const write of schedule) byLineage.set(write.lineageId, [...(byLineage.get(write.lineageId) ?? []), write]);
  try {
    await Promise.all(
      [...byLineage.values()].map(async (writes) => {
        for (const { lineageId, residualId, atMs } of writes) {
          if (failed) return;
          const delay = started + atMs - Date.now();
          if (delay > 0) await sleep(delay);
          const sent = await client.publishWrite(benchWrite(lineageId, residualId, Date.now()));
          pending.set(residualId, { lineageId, residualId, publishedAtMs: sent.publishedAtMs });
          sentCount += 1;
        }
      }),
    );
    publishSeconds = (Date.now() - started) / 1000;
  } finally {
    publishing = false;
  }
  await observer;
  return {
    writes: schedule.length,
    seconds: (Date.now() - started) / 1000,
    publishSeconds,
    nominalWritesPerSecond: (plan.lineages.length * 1000) / periodMs,
    unproven: timedOut ? pending.size + schedule.length - sentCount : 0,
    provenMs,
    signs: signsSince(signs?.snapshot() ?? new Map(), before),
    publishedSizes,
  };
}

/** The targets (docs/deployment-log.md, "Freshness window and interval"). */
export const FRESHNESS_TARGETS = { signsPerWrite: 0.05, p50SlackSeconds: 1 } as const;

/**
 * The scenario's figures as markdown: `Sign` per write by signer, the integrator's alone, and
 * publish → PROVEN p50/p99 against the targets and the floor, each with ✓ or ✗.
 */
export function freshnessReport(
  measured: FreshnessMeasured,
  options: { readonly intervalSeconds: number; readonly floorP50Ms: number | null },
): string[] {
  const per = (n: number) => n / Math.max(1, measured.writes);
  const count = (signer: Signer) => measured.signs.get(signer) ?? 0;
  const total = [...measured.signs.values()].reduce((a, b) => a + b, 0);
  const integratorAlone = count('integrator (deployment checkpoint)') + count('witness (cosignature)');
  const mark = (ok: boolean) => (ok ? '✓' : '✗');
  const p50 = quantile(measured.provenMs, 0.5);
  const p99 = quantile(measured.provenMs, 0.99);
  const p50Target = (options.intervalSeconds + FRESHNESS_TARGETS.p50SlackSeconds) * 1000;
  const rows = [...measured.signs.entries()].sort((a, b) => b[1] - a[1]);
  const sealerSigns = count('sealer (lineage checkpoint)');
  const integrations = count('integrator (deployment checkpoint)');
  const writesPerIntegration = measured.writes / Math.max(1, integrations);
  const signsPerIntegration = total / Math.max(1, integrations);
  const nominalPerIntegration = measured.nominalWritesPerSecond * options.intervalSeconds;
  return [
    ...(measured.unproven > 0
      ? [
          `✗ ${measured.unproven} of ${measured.writes} writes not proven (or not published) when the time-out ended the run; the figures below are of the writes proven.`,
          '',
        ]
      : []),
    `${measured.writes} writes published in ${measured.publishSeconds.toFixed(1)} s (${(measured.writes / Math.max(measured.publishSeconds, 0.001)).toFixed(1)} writes/s reached), all proven ${measured.seconds.toFixed(1)} s after the first; ${measured.provenMs.length} proven; ${measured.publishedSizes.length} published deployment checkpoints seen (sizes ${measured.publishedSizes[0] ?? '–'}…${measured.publishedSizes.at(-1) ?? '–'})`,
    '',
    '| signer | Sign | per write |',
    '| --- | ---: | ---: |',
    ...rows.map(([signer, n]) => `| ${signer} | ${n} | ${per(n).toFixed(3)} |`),
    `| **all** | **${total}** | **${per(total).toFixed(3)}** |`,
    `| the integrator alone (its log-key Sign + the witness's) | ${integratorAlone} | ${per(integratorAlone).toFixed(3)} |`,
    '',
    `- Sign per write, all signers: ${per(total).toFixed(3)} against the target ≤ ${FRESHNESS_TARGETS.signsPerWrite}: ${mark(per(total) <= FRESHNESS_TARGETS.signsPerWrite)}${sealerSigns > 0 ? ` (the sealer signed ${sealerSigns} lineage checkpoints)` : ' (the sealer signed no lineage checkpoint)'}`,
    `- Sign per write, the integrator alone: ${per(integratorAlone).toFixed(3)} against ≤ ${FRESHNESS_TARGETS.signsPerWrite}: ${mark(per(integratorAlone) <= FRESHNESS_TARGETS.signsPerWrite)}`,
    `- integrations: ${integrations} (one log-key Sign each), ${writesPerIntegration.toFixed(1)} writes each, ${signsPerIntegration.toFixed(2)} Sign each (all signers); at the plan's nominal ${measured.nominalWritesPerSecond} writes/s, one integration per ${options.intervalSeconds} s interval gathers ${nominalPerIntegration} writes: ${signsPerIntegration.toFixed(2)} ÷ ${nominalPerIntegration} = ${(signsPerIntegration / nominalPerIntegration).toFixed(3)} Sign per write (${mark(signsPerIntegration / nominalPerIntegration <= FRESHNESS_TARGETS.signsPerWrite)} against ≤ ${FRESHNESS_TARGETS.signsPerWrite}), what these counts imply where the sealer keeps up`,
    `- publish → PROVEN p50 ${(p50 / 1000).toFixed(2)} s, p99 ${(p99 / 1000).toFixed(2)} s; target p50 ≤ interval + 1 s = ${(p50Target / 1000).toFixed(0)} s: ${mark(p50 <= p50Target)}`,
    options.floorP50Ms === null
      ? '- floor: not measured'
      : `- floor (the design card's write calls made directly, same run): p50 ${(options.floorP50Ms / 1000).toFixed(2)} s; floor + interval = ${((options.floorP50Ms + options.intervalSeconds * 1000) / 1000).toFixed(2)} s, the least a write can wait for the next integration; p50 ÷ that: ${(p50 / (options.floorP50Ms + options.intervalSeconds * 1000)).toFixed(2)}×`,
  ];
}
