import { randomBytes } from 'node:crypto';
import { pollUntil } from '../../client/poll';
import { soleWriterPolicy } from '../../client/sole-writer-policy';
import { freshVariable, inheritedVariable, reprobedVariable } from '../../client/variables';
import { writeRequest } from '../../client/write-request';
import { signWriteRequest } from '../../shared/authorship/write-signature';
import type { JsonValue } from '../../shared/canonical/canonical-json';
import { verifyChainReceipt } from '../../shared/integrator/chain-receipt';
import { verifyReceipt } from '../../shared/log/receipt';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import type { SessionVariable } from '../../shared/write/session-variable';
import type { UnsignedWriteRequest } from '../../shared/write/write-request';
import { type AgentDecision, decideAfterTriage } from './agent';
import type { DemoBackend, DemoRecall, DemoReceipt } from './backend';
import {
  asPayload,
  buildScenario,
  LINEAGE_TEMPLATES,
  type LineagePlan,
  type LineageTemplate,
  manifestClaimMap,
  presentStructuralKeys,
  type ResidualBody,
  residualBody,
  resolveClaims,
} from './scenario';
import type { RunnerSnapshot } from './snapshots';
import {
  type CrossWriteResult,
  type DemoSummary,
  type FreshnessResult,
  type LineageWritersResult,
  type RecallResult,
  type ReceiptResult,
  type RefusedWriteResult,
  type RollbackResult,
  type TamperResult,
  totalsOf,
} from './summary';

/** Options of {@link runDemo}. */
export interface RunDemoOptions {
  /** The deployed stack (or an in-process stand-in). */
  readonly backend: DemoBackend;
  /** The snapshots to replay, oldest first (at least two; see `sliceSnapshots`). */
  readonly slice: readonly RunnerSnapshot[];
  /** Unique per run, `[a-z0-9-]`; lineage ids are `demo-<runId>-<name>`. @default random */
  readonly runId?: string;
  /** @default LINEAGE_TEMPLATES */
  readonly templates?: readonly LineageTemplate[];
  /** Lineages replayed at the same time. @default all of them */
  readonly concurrency?: number;
  /** How long to wait for a write to be sealed or refused, in milliseconds. @default 60_000 */
  readonly writeTimeoutMs?: number;
  /** How often to poll the head / rejection records, in milliseconds. @default 250 */
  readonly pollIntervalMs?: number;
  /** Progress lines. @default none */
  readonly log?: (line: string) => void;
  /** Aborts between steps (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Clock, ms since the Unix epoch. @default Date.now */
  readonly nowMs?: () => number;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A step of the demo could not complete (a write refused that should pass, a wait that ran out). */
export class DemoStepError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DemoStepError';
  }
}

/** Where one lineage stands while the demo replays it. */
interface LineageState {
  readonly plan: LineagePlan;
  epoch: number;
  sessionId: string;
  head: { seq: number; recordHash: string };
  claims: Record<string, string[]>;
  structuralKeys: string[];
  body: ResidualBody;
}

/**
 * Runs the whole demo against a deployed stack and returns what happened, structured.
 *
 * 1. Every lineage writes its first record at the slice's first snapshot (SQS → guard → sealer)
 *    and the demo waits until each head shows it.
 * 2. A resumed session of the node-build lineage writes with an `UNVERIFIED_INHERITED` variable;
 *    the demo waits for the guard's rejection record and checks the head did not move.
 * 3. Each lineage is recalled through EventBridge at every snapshot of the slice (the first
 *    included) with `currentEnv` = that snapshot; after PARTIAL_REPROBE_REQUIRED it re-probes the
 *    invalidated claims, after FULL_RECONSTRUCTION_REQUIRED all of them, and re-seals a record
 *    that supersedes the recalled one. Lineages run concurrently (bounded).
 * 2′. Two agents, each with its own writer key and lineage, each write into the other's lineage:
 *    their own client refuses to send it; sent past the client, the sealer refuses it
 *    (`WRITER_NOT_ADMITTED`, recorded unsigned: an untrusted refusal) and the head does not move.
 * 4. Each lineage is verified through the signed log, and who wrote each record is listed.
 * 5. A receipt for seq 0 of the python-ci lineage is checked offline with the log's public key.
 * 6. Each lineage is recalled until the client's freshness is PROVEN under the deployment
 *    checkpoint; then one lineage is rolled back in the table to its signed state before step 3 and
 *    a successor client with no local state must refuse it (NOT_NEWEST); the lineage is put back.
 *    Skipped when the backend has no table (`copyLineage` absent).
 * 7. The python-ci lineage's latest record is edited in the table; the recall after it must be
 *    refused (HASH_MISMATCH).
 *
 * `problems` in the summary lists every expectation that did not hold (empty on success).
 *
 * @throws {DemoStepError} when a step cannot complete (a write refused or not sealed in time)
 * @throws {Error} (`AbortError`) when `signal` aborts
 */
export async function runDemo(options: RunDemoOptions): Promise<DemoSummary> {
  const nowMs = options.nowMs ?? Date.now;
  const started = nowMs();
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const log = options.log ?? (() => undefined);
  const { backend, slice } = options;
  const runId = options.runId ?? randomBytes(4).toString('hex');
  const scenario = buildScenario(slice, runId, options.templates ?? LINEAGE_TEMPLATES);
  const writeTimeoutMs = options.writeTimeoutMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const first = slice[0] as RunnerSnapshot;
  const last = slice[slice.length - 1] as RunnerSnapshot;
  const problems: string[] = [];
  const checkAbort = () => options.signal?.throwIfAborted();

  const clock = { nowMs, sleep };
  const wait = { timeoutMs: writeTimeoutMs, pollIntervalMs };
  const waitSealed = (lineageId: string, residualId: string, seq: number) =>
    pollUntil(
      async () => {
        checkAbort();
        const head = await backend.readHead(lineageId);
        if (head && head.seq >= seq) {
          // Recalled next: wait until the index holds it (docs/deployment-log.md, "Clients").
          await backend.untilIntegrated(lineageId, residualId);
          return { seq: head.seq, recordHash: head.recordHash };
        }
        const rejection = await backend.findRejection(lineageId, residualId);
        if (rejection) {
          throw new DemoStepError(
            `write ${residualId} was refused by the ${rejection.stage.toLowerCase()}: ${rejection.reason} ${JSON.stringify(rejection.rejectedVariables)}`,
          );
        }
        return null;
      },
      clock,
      { ...wait, timedOut: (ms) => new DemoStepError(`write ${residualId} not sealed within ${ms} ms`) },
    );

  const publishAs = async (plan: LineagePlan, request: UnsignedWriteRequest) =>
    backend.publishWrite(await signWriteRequest(request, plan.writer, nowMs()));

  const newSession = (state: { plan: LineagePlan; epoch: number; sessionId: string }) => {
    const previous = { sessionId: state.sessionId, epoch: state.epoch };
    const epoch = state.epoch + 1;
    return { previous, epoch, sessionId: `${state.plan.template.name}-s${epoch}`, boundaryAtMs: nowMs() - 1 };
  };

  // 1. First records.
  const states = await Promise.all(
    scenario.lineages.map(async (plan): Promise<LineageState> => {
      const snapshot = slice[plan.writeAt] as RunnerSnapshot;
      const { claimDependencyMap } = resolveClaims(plan.template, snapshot.env);
      const structuralKeys = presentStructuralKeys(plan.template, snapshot.env);
      const body = residualBody(plan.template, snapshot, claimDependencyMap, Object.keys(claimDependencyMap), null);
      const epoch = 1;
      const sessionId = `${plan.template.name}-s${epoch}`;
      const residualId = `${plan.lineageId}.e${epoch}`;
      const variables = keysOf(claimDependencyMap).map((key) => freshVariable(key, snapshot.env[key] as string, epoch));
      // Each agent signs with its own key; the first write sets the lineage's policy (inception).
      await publishAs(
        plan,
        writeRequest({
          residualId,
          lineageId: plan.lineageId,
          policy: soleWriterPolicy(plan.writer),
          sessionId,
          generationEpoch: epoch,
          payload: asPayload(body),
          variables,
          boundaryAtMs: nowMs() - 1,
          manifest: {
            env: snapshot.env,
            structuralKeys,
            claimDependencyMap: manifestClaimMap(plan.template, claimDependencyMap),
          },
        }),
      );
      const head = await waitSealed(plan.lineageId, residualId, 0);
      log(
        `${plan.template.name}: record 0 sealed at snapshot #${snapshot.index} (${Object.keys(claimDependencyMap).length} claims)`,
      );
      return { plan, epoch, sessionId, head, claims: claimDependencyMap, structuralKeys, body };
    }),
  );
  const stateOf = (lineageId: string) => states.find((s) => s.plan.lineageId === lineageId) as LineageState;

  // 2. A resumed session writes an inherited variable it never re-probed: the guard must refuse it.
  const refusedWrite = await (async (): Promise<RefusedWriteResult> => {
    checkAbort();
    const state = stateOf(scenario.refusedWrite.lineageId);
    const session = newSession(state);
    state.epoch = session.epoch;
    state.sessionId = session.sessionId;
    const residualId = `${state.plan.lineageId}.e${session.epoch}-inherited`;
    const { variableName, variableValue } = scenario.refusedWrite;
    await publishAs(
      state.plan,
      writeRequest({
        residualId,
        lineageId: state.plan.lineageId,
        sessionId: session.sessionId,
        generationEpoch: session.epoch,
        payload: { ...(asPayload(state.body) as Record<string, JsonValue>), runnerInstanceId: variableValue },
        variables: [inheritedVariable(variableName, variableValue, session.previous.epoch)],
        boundaryAtMs: session.boundaryAtMs,
        predecessor: session.previous,
        manifest: {
          env: first.env,
          structuralKeys: state.structuralKeys,
          claimDependencyMap: manifestClaimMap(state.plan.template, state.claims),
        },
      }),
    );
    const rejection = await pollUntil(
      async () => {
        checkAbort();
        return (await backend.findRejection(state.plan.lineageId, residualId)) ?? null;
      },
      clock,
      { ...wait, timedOut: (ms) => new DemoStepError(`no rejection record for ${residualId} within ${ms} ms`) },
    );
    const head = await backend.readHead(state.plan.lineageId);
    const headUnchanged = head?.seq === state.head.seq && head.recordHash === state.head.recordHash;
    const result = {
      lineageId: state.plan.lineageId,
      residualId,
      variableName,
      stage: rejection.stage,
      reason: rejection.reason,
      rejectedVariables: rejection.rejectedVariables.map((v) => ({ name: v.name, reason: v.reason })),
      headUnchanged,
    };
    if (!result.rejectedVariables.some((v) => v.name === variableName && v.reason === 'UNVERIFIED_INHERITED')) {
      problems.push(`the guard's rejection of ${residualId} does not name ${variableName} as UNVERIFIED_INHERITED`);
    }
    if (!headUnchanged) problems.push(`the head of ${state.plan.lineageId} moved after a refused write`);
    log(
      `${state.plan.template.name}: write with unverified inherited ${variableName} refused (${rejection.stage} ${rejection.reason})`,
    );
    return result;
  })();

  // 2′. Two agents, each in the other's lineage (docs/authorship.md, "Two refusals, in order").
  const pair = states.slice(0, 2);
  const crossWrites: CrossWriteResult[] = [];
  for (const [by, into] of pair.length === 2 ? ([pair, [pair[1], pair[0]]] as LineageState[][]) : []) {
    checkAbort();
    crossWrites.push(await crossWrite(by as LineageState, into as LineageState));
  }

  async function crossWrite(by: LineageState, into: LineageState): Promise<CrossWriteResult> {
    const residualId = `${into.plan.lineageId}.by-${by.plan.template.name}`;
    // The other agent's sessionId and a high epoch: a stranger must neither write nor fence the owner out.
    const request = await signWriteRequest(
      writeRequest({
        residualId,
        lineageId: into.plan.lineageId,
        sessionId: into.sessionId,
        generationEpoch: 99,
        payload: { note: `${by.plan.template.name} writing into ${into.plan.template.name}'s lineage` },
        boundaryAtMs: nowMs() - 1_000,
        manifest: {
          env: first.env,
          structuralKeys: into.structuralKeys,
          claimDependencyMap: manifestClaimMap(into.plan.template, into.claims),
        },
      }),
      by.plan.writer,
      nowMs(),
    );
    let clientRefused = false;
    try {
      await backend.publishWrite(request);
    } catch {
      clientRefused = true; // its client checks admission before sending (docs/authorship.md)
    }
    if (clientRefused) await backend.publishUnchecked(request);
    const refusal = await pollUntil(
      async () => {
        checkAbort();
        return (await backend.readRefusal(into.plan.lineageId, residualId)) ?? null;
      },
      clock,
      { ...wait, timedOut: (ms) => new DemoStepError(`no refusal for ${residualId} within ${ms} ms`) },
    );
    const head = await backend.readHead(into.plan.lineageId);
    const result: CrossWriteResult = {
      by: by.plan.template.name,
      intoLineageId: into.plan.lineageId,
      into: into.plan.template.name,
      residualId,
      clientRefused,
      stage: refusal.stage,
      reason: refusal.reason,
      signed: refusal.signatureVerified,
      headUnchanged: head?.seq === into.head.seq && head.recordHash === into.head.recordHash,
    };
    if (!clientRefused) problems.push(`${by.plan.template.name}'s client sent a write into ${into.plan.lineageId}`);
    if (result.stage !== 'SEALER' || result.reason !== 'WRITER_NOT_ADMITTED' || result.signed) {
      problems.push(
        `${residualId} was not refused unsigned as SEALER WRITER_NOT_ADMITTED (${result.stage} ${result.reason}, ${result.signed ? 'signed' : 'unsigned'})`,
      );
    }
    if (!result.headUnchanged) problems.push(`the head of ${into.plan.lineageId} moved after a stranger's write`);
    log(
      `${by.plan.template.name} → ${into.plan.template.name}'s lineage: refused by its client, then by the ${result.stage.toLowerCase()} (${result.reason}, ${result.signed ? 'signed' : 'unsigned: an untrusted refusal'})`,
    );
    return result;
  }

  // A table writer's copy of each lineage as signed now, before any re-seal (for step 6).
  const earlier = backend.copyLineage
    ? await Promise.all(
        states.map((state) => (backend.copyLineage as NonNullable<typeof backend.copyLineage>)(state.plan.lineageId)),
      )
    : [];

  // 3. Recalls at every snapshot, with targeted re-probes and re-seals.
  const recallsByLineage = await mapBounded(states, options.concurrency ?? states.length, async (state) => {
    const results: RecallResult[] = [];
    for (const position of state.plan.recallAt) {
      checkAbort();
      const snapshot = slice[position] as RunnerSnapshot;
      const recalledSeq = state.head.seq;
      const answer = await backend.recall(state.plan.lineageId, snapshot.env, state.head);
      const report = answer.delta;
      if (answer.end !== 'TRIAGED' || report === null) {
        problems.push(
          `recall of ${state.plan.lineageId} at snapshot #${snapshot.index} was refused: ${answer.verdict ?? 'no record'} ${answer.reason}`,
        );
        results.push(refusedRecall(state, snapshot, answer));
        break;
      }
      const decision = decideAfterTriage(state.plan.template, state.claims, state.structuralKeys, report, snapshot.env);
      const resealedSeq = decision.next ? await reseal(state, snapshot, decision) : null;
      const driftedKeyCount =
        report.driftedKeys.changed.length + report.driftedKeys.vanished.length + report.driftedKeys.appeared.length;
      results.push({
        lineageId: state.plan.lineageId,
        lineage: state.plan.template.name,
        snapshotIndex: snapshot.index,
        imageVersion: snapshot.image_version,
        recalledSeq,
        outcome: 'TRIAGED',
        verification: answer.verdict,
        proven: answer.proven,
        verdict: report.verdict,
        driftedKeyCount,
        mattered: decision.mattered,
        absentAppeared: decision.absentAppeared,
        quarantinedOnAbsence: decision.quarantinedOnAbsence,
        kept: decision.kept,
        reprobed: decision.reprobe,
        dropped: decision.next?.dropped ?? [],
        resealedSeq,
        environmentChanged: !report.sealIntact,
      });
      log(
        `${state.plan.template.name} #${snapshot.index}: ${report.verdict} (${driftedKeyCount} keys drifted, ` +
          `${decision.mattered.length} mattered; kept ${decision.kept.length}, re-probed ${decision.reprobe.length})` +
          (resealedSeq === null ? '' : ` → re-sealed as seq ${resealedSeq}`),
      );
    }
    return results;
  });

  async function reseal(state: LineageState, snapshot: RunnerSnapshot, decision: AgentDecision): Promise<number> {
    const next = decision.next as NonNullable<AgentDecision['next']>;
    const session = newSession(state);
    const probedAtMs = nowMs();
    const reprobedClaims = Object.keys(next.claimDependencyMap).filter((c) => !decision.kept.includes(c));
    const body = residualBody(state.plan.template, snapshot, next.claimDependencyMap, reprobedClaims, state.body);
    const structuralKeys = presentStructuralKeys(state.plan.template, snapshot.env);
    const reprobedKeys = keysOf(Object.fromEntries(reprobedClaims.map((c) => [c, next.claimDependencyMap[c] ?? []])));
    const variables: SessionVariable[] = reprobedKeys.map((key) =>
      reprobedVariable(key, snapshot.env[key] as string, session.previous.epoch, {
        probe: `read ${key} from the ${snapshot.series} software report of image ${snapshot.image_version}`,
        sessionId: session.sessionId,
        probedAtMs,
      }),
    );
    const residualId = `${state.plan.lineageId}.e${session.epoch}`;
    await publishAs(
      state.plan,
      writeRequest({
        residualId,
        lineageId: state.plan.lineageId,
        sessionId: session.sessionId,
        generationEpoch: session.epoch,
        payload: asPayload(body),
        variables,
        boundaryAtMs: Math.min(session.boundaryAtMs, probedAtMs - 1),
        predecessor: session.previous,
        manifest: {
          env: snapshot.env,
          structuralKeys,
          claimDependencyMap: manifestClaimMap(state.plan.template, next.claimDependencyMap),
        },
        supersedes: state.head,
      }),
    );
    state.head = await waitSealed(state.plan.lineageId, residualId, state.head.seq + 1);
    state.epoch = session.epoch;
    state.sessionId = session.sessionId;
    state.claims = next.claimDependencyMap;
    state.structuralKeys = structuralKeys;
    state.body = body;
    return state.head.seq;
  }

  // 4. Who wrote each record: every lineage verified through the signed log, its records attributed.
  const writers: LineageWritersResult[] = [];
  for (const state of states) {
    checkAbort();
    const found = await backend.writers(state.plan.lineageId);
    const own = state.plan.writer;
    writers.push({
      lineageId: state.plan.lineageId,
      lineage: state.plan.template.name,
      agentKeyId: own.keyId,
      ...found,
    });
    const notOwn = found.records.filter(
      (r) => r.writtenBy?.status !== 'SIGNED' || r.writtenBy.publicKey !== own.publicKey,
    );
    const inception = found.records[0]?.writtenBy;
    if (
      found.verdict !== 'VERIFIED_INTACT' ||
      notOwn.length > 0 ||
      inception?.status !== 'SIGNED' ||
      inception.admittedAs !== 'INCEPTION'
    ) {
      problems.push(
        `${state.plan.lineageId}: not every record verified as written by ${own.keyId} (${found.verdict}; ${notOwn.length} other)`,
      );
    }
    log(
      `${state.plan.template.name}: ${found.records.length} records, each written by ${own.keyId} (${found.verdict})`,
    );
  }

  const receiptLineage = stateOf(scenario.tamperLineageId);
  // 5. A format-2 receipt for one record (docs/verifiable-log.md, "Receipts"), exported once the
  // record is integrated, then checked offline with the tlog-policy alone (no AWS).
  checkAbort();
  const issued = await pollUntil(
    () => {
      checkAbort();
      return backend.receipt(receiptLineage.plan.lineageId, 0);
    },
    clock,
    {
      ...wait,
      timedOut: (ms) => new Error(`seq 0 of ${receiptLineage.plan.lineageId} was not integrated within ${ms} ms`),
    },
  );
  const receipt = checkReceiptOffline(receiptLineage.plan.lineageId, 0, issued, nowMs());
  if (receipt.verdict !== 'VERIFIED_INTACT') problems.push(`the receipt did not verify offline: ${receipt.reason}`);
  log(
    `receipt: seq 0 of ${receipt.lineageId} (format ${receipt.formatVersion}) checked offline with the tlog-policy: ${receipt.verdict}`,
  );

  // 6. The deployment checkpoint the lineages are proven under, and a rollback a successor catches.
  const freshness = await provenUnderDeploymentCheckpoint();
  const rollback = freshness ? await rollBackOneLineage() : null;

  /**
   * Recalls each lineage once more until the client's own freshness result is `PROVEN` (the
   * deployed integrator has taken its newest record; docs/deployment-log.md, "Clients").
   */
  async function provenUnderDeploymentCheckpoint(): Promise<FreshnessResult | null> {
    const answers = await mapBounded(states, options.concurrency ?? states.length, async (state) => {
      let answer = await backend.recall(state.plan.lineageId, last.env, state.head);
      const deadline = nowMs() + writeTimeoutMs;
      while (answer.freshness && answer.freshness.state !== 'PROVEN' && nowMs() < deadline) {
        checkAbort();
        await sleep(1_000);
        answer = await backend.recall(state.plan.lineageId, last.env, state.head);
      }
      return { lineage: state.plan.template.name, answer };
    });
    const checked = answers.filter((a) => a.answer.freshness);
    if (checked.length === 0) return null;
    const sizes = checked.map((a) => a.answer.freshness?.checkpointSize ?? null).filter((n) => n !== null);
    const result: FreshnessResult = {
      checkpointSize: sizes.length > 0 ? Math.max(...sizes) : null,
      witnessing: checked[0]?.answer.freshness?.witnessing ?? '?',
      states: Object.fromEntries(answers.map((a) => [a.lineage, a.answer.freshness?.state ?? 'NOT_CHECKED'])),
      proven: answers.filter((a) => a.answer.freshness?.state === 'PROVEN').length,
    };
    if (result.proven !== states.length) {
      problems.push(
        `${states.length - result.proven} final recalls were not PROVEN by the deployment log: ${JSON.stringify(result.states)}`,
      );
    }
    log(
      `freshness: ${result.proven} of ${states.length} lineages PROVEN under deployment checkpoint ${result.checkpointSize ?? '-'} (${result.witnessing})`,
    );
    return result;
  }

  /**
   * A table writer puts one lineage's head, records, markers and checkpoint back to an earlier,
   * genuine state the sealer stored (the deployment log untouched); a successor session with no local state
   * recalls it and must refuse it as `NOT_NEWEST` (docs/deployment-log.md, "Clients"). The lineage
   * is put back afterwards.
   */
  async function rollBackOneLineage(): Promise<RollbackResult | null> {
    const { copyLineage, putLineageBack, recallCold } = backend;
    if (!copyLineage || !putLineageBack || !recallCold) return null;
    const index = states.findIndex((state, i) => state.head.seq > (earlier[i]?.headSeq ?? Number.POSITIVE_INFINITY));
    const state = states[index];
    const older = earlier[index];
    if (!state || !older) {
      problems.push('no lineage moved past its first copy: the rollback step had nothing to roll back');
      return null;
    }
    checkAbort();
    const newest = await copyLineage(state.plan.lineageId);
    await putLineageBack(older);
    let answer: DemoRecall;
    try {
      answer = await recallCold(state.plan.lineageId, last.env);
    } finally {
      await putLineageBack(newest);
    }
    const result: RollbackResult = {
      lineageId: state.plan.lineageId,
      lineage: state.plan.template.name,
      headSeq: newest.headSeq,
      rolledBackToSeq: older.headSeq,
      outcome: answer.end === 'TRIAGED' ? 'TRIAGED' : 'REFUSED',
      verification: answer.verdict,
      freshnessState: answer.freshness?.state ?? null,
      reason: answer.reason,
      restored: true,
    };
    if (result.outcome !== 'REFUSED' || result.freshnessState !== 'NOT_NEWEST') {
      problems.push(
        `the rolled-back lineage ${state.plan.lineageId} was not refused as NOT_NEWEST by a successor with no local state (${result.outcome}, ${result.verification}, ${result.freshnessState})`,
      );
    }
    log(
      `rollback: ${state.plan.template.name} put back from seq ${result.headSeq} to seq ${result.rolledBackToSeq} in the table; ` +
        `a successor with no local state recalls it → ${result.outcome} ${result.verification} ${result.freshnessState ?? '-'}; put back`,
    );
    return result;
  }

  // 7. Edit a sealed record behind the sealer's back; the next recall must refuse it.
  checkAbort();
  const target = stateOf(scenario.tamperLineageId);
  const edit = await backend.tamperWithPayload(target.plan.lineageId, target.head.seq);
  const tamperAnswer = await backend.recall(target.plan.lineageId, last.env, target.head);
  const tamper: TamperResult = {
    lineageId: target.plan.lineageId,
    seq: target.head.seq,
    edited: edit.path,
    outcome: tamperAnswer.end === 'TRIAGED' ? 'TRIAGED' : 'REFUSED',
    verification: tamperAnswer.verdict,
    firstFailure:
      tamperAnswer.verdict === null || tamperAnswer.verdict === 'VERIFIED_INTACT'
        ? null
        : { seq: tamperAnswer.seq, verdict: tamperAnswer.verdict, reason: tamperAnswer.reason },
  };
  if (tamper.outcome !== 'REFUSED' || tamper.verification !== 'HASH_MISMATCH') {
    problems.push(`the tampered record was not refused as HASH_MISMATCH (${tamper.outcome}, ${tamper.verification})`);
  }
  log(
    `tamper: ${edit.path} ${JSON.stringify(edit.before)} → ${JSON.stringify(edit.after)}; recall ${tamper.outcome} ${tamper.verification}`,
  );

  const recalls = recallsByLineage.flat();
  const provenRecalls = recalls.filter((r) => r.proven).length;
  if (provenRecalls !== recalls.length) {
    problems.push(`${recalls.length - provenRecalls} recalls were not proven by inclusion in a vouched-for tree`);
  }
  return {
    runId,
    endpoint: backend.endpoint,
    series: first.series,
    snapshots: {
      count: slice.length,
      firstIndex: first.index,
      lastIndex: last.index,
      firstDate: first.source.date,
      lastDate: last.source.date,
    },
    lineages: states.map((s) => ({
      lineageId: s.plan.lineageId,
      lineage: s.plan.template.name,
      claims: Object.keys(s.claims).length,
      records: s.head.seq + 1,
    })),
    recalls,
    refusedWrite,
    crossWrites,
    writers,
    tamper,
    receipt,
    freshness,
    rollback,
    provenRecalls,
    totals: totalsOf(recalls),
    durationMs: nowMs() - started,
    problems,
  };
}

function refusedRecall(state: LineageState, snapshot: RunnerSnapshot, answer: DemoRecall): RecallResult {
  return {
    lineageId: state.plan.lineageId,
    lineage: state.plan.template.name,
    snapshotIndex: snapshot.index,
    imageVersion: snapshot.image_version,
    recalledSeq: answer.seq,
    outcome: 'REFUSED',
    verification: answer.verdict,
    proven: false,
    verdict: null,
    driftedKeyCount: 0,
    mattered: [],
    absentAppeared: [],
    quarantinedOnAbsence: [],
    kept: [],
    reprobed: [],
    dropped: [],
    resealedSeq: null,
    environmentChanged: false,
  };
}

/** Every causal key of a claim map, sorted, unique. */
function keysOf(claims: Readonly<Record<string, readonly string[]>>): string[] {
  return [...new Set(Object.values(claims).flat())].sort();
}

/** `Promise.all(items.map(fn))` with at most `limit` calls in flight; results in input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/**
 * Checks a receipt as a third party would with `reseal verify --receipt --policy` (docs/cli.md):
 * format 2 against the policy (inclusion under a deployment checkpoint that meets it; no maximum
 * age, the demo's check is of inclusion), format 1 with the policy's one log key.
 */
function checkReceiptOffline(lineageId: string, seq: number, issued: DemoReceipt, nowMs: number): ReceiptResult {
  const policy = parsePolicy(issued.policy);
  if (issued.receipt.formatVersion === 2) {
    const checked = verifyChainReceipt(issued.receipt, {
      policy,
      nowSeconds: Math.floor(nowMs / 1000),
      maxAgeSeconds: null,
    });
    return {
      lineageId,
      seq,
      formatVersion: 2,
      verdict: checked.verdict,
      checkpointSize: checked.deployment?.checkpoint.size ?? null,
      reason: checked.reason,
    };
  }
  const key = policy.logs.length === 1 ? policy.logs[0]?.key : undefined;
  const checked = key
    ? verifyReceipt(issued.receipt, key)
    : { verdict: 'UNVERIFIED_TAMPER_RISK', checkpoint: null, reason: 'the policy names more than one log' };
  return {
    lineageId,
    seq,
    formatVersion: 1,
    verdict: checked.verdict,
    checkpointSize: checked.checkpoint?.size ?? null,
    reason: checked.reason,
  };
}
