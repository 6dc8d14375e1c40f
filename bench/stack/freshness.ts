/**
 * `npm run bench:freshness`: the freshness bench on the emulator (docs/deployment-log.md,
 * "Freshness window and interval"; bench/RESULTS.md). Starts MiniStack, deploys the stack with
 * the functions' endpoint on a counting proxy, deploys the witness stack with the log's key and
 * deploys the stack again with that witness (docs/witness.md, "Deploy order"), so the integrator
 * submits every deployment checkpoint and the heartbeat schedule exists. Then:
 *
 * 1. 50 lineages × 1 write/s (options below) for at least 10 integration intervals: every KMS
 *    `Sign` counted by signer, and publish → PROVEN (the client's `proveFreshness` under the
 *    witnessed policy) p50/p99 against the targets, beside the design card's write floor timed
 *    in the same run;
 * 2. an idle wait (default 150 s, more than the heartbeat threshold of 60 s plus its one-minute
 *    period): whether the deployed heartbeat schedule cosigned the unchanged head anew, and what
 *    it signed.
 *
 * Everything it started is stopped on the way out, also on failure.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import {
  DEFAULT_INTEGRATION_INTERVAL_SECONDS,
  DEFAULT_MAX_AGE_SECONDS,
  freshnessPolicy,
} from '../../client/freshness-policy';
import type { StackOutputs } from '../../client/stack-outputs';
import { checkEndpoint } from '../../scripts/emulator/check-endpoint';
import { clientConfig, deployStack, deployWitnessStack, emulatorFunctionUrl } from '../../scripts/emulator/deploy';
import { EMULATOR_DIR, type Emulator, startEmulator } from '../../scripts/emulator/emulator';
import { formatVerifierKey } from '../../shared/log/note-key';
import { parseSignedNote } from '../../shared/log/signed-note';
import { verifyCosignature } from '../../shared/witness/cosignature';
import { parseCosignerKey } from '../../shared/witness/cosigner-key';
import { CallTimer, callTimeTable, timesSince } from './call-timer';
import { type CountingProxy, startCountingProxy } from './counting-proxy';
import { eventSourceBatches, sealerInvocations, sealerThroughput } from './event-source-batches';
import { freshnessClient, freshnessReport, measureFreshness } from './freshness-bench';
import { SignTally, signsSince } from './sign-tally';
import { benchLineageId, measureWriteFloor } from './stack-bench';
import { quantile } from './stack-report';

const USAGE = `usage: npm run bench:freshness -- [options]

  --lineages N       lineages writing at once, one write per second each (default 50)
  --seconds N        seconds of writes (default 24: 12 integration intervals of 2 s)
  --idle-seconds N   idle seconds after the writes, to watch the heartbeat (default 150; 0 skips)
  --floor-writes N   design-floor writes timed one at a time (default 10)
  --timeout-seconds N  how long after the last publish every write must be proven (default 900)
  --help             this text`;

/** The loopback address the functions' proxy listens on, on the emulator's own port (as bench/stack/run.ts). */
const PROXY_HOST = '127.0.0.2';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function positiveInt(name: string, text: string, min = 1): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer ≥ ${min}, got "${text}"`);
  return value;
}

/** The newest cosignature time of `note` by the witness `vkey`, POSIX seconds, or `null`. */
function cosignedAt(note: string | null, vkey: string): number | null {
  if (note === null) return null;
  const { text, signatures } = parseSignedNote(note);
  const key = parseCosignerKey(vkey);
  const times = signatures.map((s) => verifyCosignature(text, s, key)).filter((t): t is number => t !== null);
  return times.length > 0 ? Math.max(...times) : null;
}

async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      lineages: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '24' },
      'idle-seconds': { type: 'string', default: '150' },
      'floor-writes': { type: 'string', default: '10' },
      'timeout-seconds': { type: 'string', default: '900' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const lineages = positiveInt('lineages', values.lineages);
  const seconds = positiveInt('seconds', values.seconds);
  const idleSeconds = positiveInt('idle-seconds', values['idle-seconds'], 0);
  const floorWrites = positiveInt('floor-writes', values['floor-writes']);
  const timeoutMs = positiveInt('timeout-seconds', values['timeout-seconds']) * 1000;
  if (process.env.AWS_ENDPOINT_URL) {
    checkEndpoint(process.env.AWS_ENDPOINT_URL);
    throw new Error(
      'bench:freshness starts its own emulator (the proxy must sit at the queue URLs): unset AWS_ENDPOINT_URL',
    );
  }
  const log = (line: string) => console.error(`[bench:freshness] ${line}`);
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
  const proxies: CountingProxy[] = [];
  const dirs: string[] = [];
  let emulator: Emulator | undefined;
  const runStarted = performance.now();
  try {
    emulator = await startEmulator({ advertisedHost: PROXY_HOST, log });
    const endpoint = emulator.endpoint;
    let tally: SignTally | null = null;
    const timer = new CallTimer();
    const proxy = await startCountingProxy({
      target: endpoint,
      host: PROXY_HOST,
      port: Number(new URL(endpoint).port),
      observe: (service, operation, body) => tally?.observe(service, operation, body),
      timed: (service, operation, ms) => timer.record(service, operation, ms),
    });
    proxies.push(proxy);
    process.env.RESEAL_ENDPOINT_OVERRIDE = proxy.endpoint;

    log('phase 1: the stack, unwitnessed');
    let outputs = (await deployStack(endpoint, { embedded: true, log })) as StackOutputs;
    const kms = new KMSClient(clientConfig(endpoint));
    const logKey = await new KMSNoteVerifierKey(kms, outputs.LogKeyArn, outputs.LogName).get();
    log('phase 2: the witness stack, with the log key');
    const witness = await deployWitnessStack(endpoint, formatVerifierKey(logKey), { log });
    // The integrator runs inside the emulator and reaches the witness's function URL through the proxy.
    const witnessUrl = emulatorFunctionUrl(proxy.endpoint, witness.WitnessUrl, '/');
    const policyText = `log ${formatVerifierKey(logKey)}\nwitness w1 ${witness.WitnessVkey} ${witnessUrl}\nquorum w1\n`;
    log(`phase 3: the stack again, its integrator submitting to ${witnessUrl} (and the heartbeat schedule)`);
    const policyDir = mkdtempSync(join(tmpdir(), 'reseal-freshness-'));
    dirs.push(policyDir);
    const policyFile = join(policyDir, 'policy.txt');
    writeFileSync(policyFile, policyText);
    outputs = (await deployStack(endpoint, {
      embedded: true,
      log,
      context: { witnessUrl, witnessPolicyFile: policyFile },
    })) as StackOutputs;
    tally = new SignTally({
      logKeyArn: outputs.LogKeyArn,
      logName: outputs.LogName,
      guardKeyArn: outputs.GuardKeyArn,
      sealerKeyArn: outputs.SealerKeyArn,
      witnessKeyArn: witness.WitnessKeyArn,
    });
    const interval = DEFAULT_INTEGRATION_INTERVAL_SECONDS;
    const policy = freshnessPolicy(policyText, DEFAULT_MAX_AGE_SECONDS, interval);
    const client = freshnessClient(outputs, endpoint, policy);
    const deployment = new DynamoDBDeploymentLogStore(new DynamoDBClient(clientConfig(endpoint)), outputs.TableName);
    const run = Date.now().toString(36);
    const lineage = (name: string) => benchLineageId(`fresh-${run}-${name}`);

    log('warm-up: 2 lineages × 3 s (cold starts, the cold integrator asking its witness; not measured)');
    const warm = await measureFreshness(client, deployment, tally, {
      lineages: [lineage('warm-0'), lineage('warm-1')],
      seconds: 3,
    });
    log(`warm-up: ${warm.provenMs.length} proven, p50 ${quantile(warm.provenMs, 0.5)} ms`);

    log(`design floor: ${floorWrites} writes one at a time`);
    const floor = await measureWriteFloor({ endpoint, outputs }, floorWrites, 1);

    log(`scenario: ${lineages} lineages × 1 write/s × ${seconds} s (${seconds / interval} intervals of ${interval} s)`);
    const timesBefore = timer.snapshot();
    const scenarioFromMs = Date.now();
    const measured = await measureFreshness(client, deployment, tally, {
      lineages: Array.from({ length: lineages }, (_, i) => lineage(`l${i}`)),
      seconds,
      timeoutMs,
    });
    const sealing = sealingReport(
      readFileSync(join(EMULATOR_DIR, `ministack-${new URL(endpoint).port}.log`), 'utf8'),
      scenarioFromMs,
      Date.now(),
    );
    const scenarioTimes = timesSince(timer.snapshot(), timesBefore);

    const idle: string[] = [];
    if (idleSeconds > 0) {
      log(`idle: ${idleSeconds} s without a write (the heartbeat schedule fires each minute)`);
      const before = tally.snapshot();
      const head = await deployment.readHead();
      const at = cosignedAt(head?.published ?? null, witness.WitnessVkey);
      await sleep(idleSeconds * 1000);
      const after = await deployment.readHead();
      const atAfter = cosignedAt(after?.published ?? null, witness.WitnessVkey);
      const signs = signsSince(tally.snapshot(), before);
      const fresh = atAfter !== null && at !== null && atAfter > at && after?.size === head?.size;
      idle.push(
        `After ${idleSeconds} s with no write: head size ${head?.size ?? '–'} → ${after?.size ?? '–'}; the published note's cosignature time ${at ?? '–'} → ${atAfter ?? '–'} (${atAfter !== null && at !== null ? `+${atAfter - at} s` : '–'}): ${fresh ? '✓ cosigned anew by the deployed heartbeat' : '✗ not cosigned anew'}.`,
        `Signs while idle: ${[...signs.entries()].map(([s, n]) => `${s} ${n}`).join(', ') || 'none'} (the heartbeat signs nothing with the log key).`,
      );
    }

    const out = [
      '# Reseal freshness bench (emulator)',
      '',
      `- date: ${new Date().toISOString()}`,
      `- scenario: ${lineages} lineages × 1 write/s × ${seconds} s; integration interval ${interval} s (the default); witness: the witness stack on the same emulator; policy maximum age ${DEFAULT_MAX_AGE_SECONDS} s`,
      '',
      ...freshnessReport(measured, { intervalSeconds: interval, floorP50Ms: quantile(floor.latenciesMs, 0.5) }),
      '',
      ...sealing,
      '',
      'Time in AWS calls during the scenario, every function (the round trip through the counting proxy; summed over overlapping calls):',
      '',
      ...callTimeTable(scenarioTimes),
      '',
      ...idle,
      '',
      `(${((performance.now() - runStarted) / 1000).toFixed(0)} s)`,
    ];
    console.log(out.join('\n'));
  } finally {
    for (const proxy of proxies) await proxy.close();
    await emulator?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What the sealer's rate was made of during the scenario (bench/stack/event-source-batches.ts):
 * the `seal-requests` batches MiniStack delivered, and the sealer's own `batch handled` lines.
 */
function sealingReport(ministackLog: string, fromMs: number, toMs: number): string[] {
  // MiniStack logs whole seconds: a batch logged in the scenario's first second may be the warm-up's.
  const batches = eventSourceBatches(ministackLog).filter(
    (b) => /seal-requests/.test(b.queueName) && b.atMs >= fromMs - 1000 && b.atMs <= toMs,
  );
  const sizes = new Map<number, number>();
  for (const b of batches) sizes.set(b.records, (sizes.get(b.records) ?? 0) + 1);
  const t = sealerThroughput(sealerInvocations(ministackLog), fromMs, toMs);
  const ms = (values: number[], q: number) => (values.length > 0 ? `${quantile(values, q).toFixed(0)} ms` : '–');
  return [
    `Sealer (one FIFO event source; MiniStack delivers one batch at a time per FIFO queue): ${batches.length} seal-requests batches; records per batch: ${[
      ...sizes,
    ]
      .sort((a, b) => a[0] - b[0])
      .map(([n, k]) => `${n}×${k}`)
      .join(', ')}.`,
    `Sealer invocations (their \`batch handled\` lines): ${t.invocations}, ${t.records} records, ${t.recordsPerInvocation.toFixed(1)} per invocation; duration p50 ${ms(t.durationsMs, 0.5)}, p99 ${ms(t.durationsMs, 0.99)}; wait between one invocation's end and the next one's start p50 ${ms(t.gapsMs, 0.5)}, p99 ${ms(t.gapsMs, 0.99)}; busy ${(100 * t.busy).toFixed(0)}% of the span; ${t.recordsPerSecond.toFixed(2)} records/s sealed.`,
  ];
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
