import type { TestContext } from 'vitest';
import { describe, expect, it } from 'vitest';
import { DeploymentHeartbeat } from '../../../../functions/integrator/heartbeat';
import type { IntegratorWitness } from '../../../../functions/integrator/witness-submission';
import { LogStateError } from '../../../../shared/errors';
import { heartbeatDue, heartbeatThresholdSeconds } from '../../../../shared/integrator/heartbeat-due';
import { isHeartbeatEvent } from '../../../../shared/integrator/heartbeat-event';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { signCheckpoint } from '../../../../shared/log/sign-checkpoint';
import { parseSignedNote } from '../../../../shared/log/signed-note';
import type { NoteSigner } from '../../../../shared/ports/note-signer';
import { checkPolicy, PolicyRefusal } from '../../../../shared/witness/policy-check';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import { FakeMetrics, fakeLogger } from '../../../helpers/factories';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { INTEGRATION_NOW_MS, inProcessIntegration } from '../../../helpers/in-process-integration';
import { inProcessWitness } from '../../../helpers/in-process-witness';
import { TEST_LOG_KEY, testLogSigner } from '../../../helpers/pipeline-keys';
import { testWitnessSigner } from '../../../helpers/witness-factories';
import { testLineageId } from '../../../helpers/writer-factories';

const MAX_AGE = 180;
const THRESHOLD = heartbeatThresholdSeconds(MAX_AGE);
const B = testLineageId('lin-heartbeat-b');

/** A signer that counts its signatures. */
function counting<S extends NoteSigner>(signer: S): S & { signs: number } {
  const counted = Object.assign(Object.create(signer) as S, { signs: 0 });
  counted.sign = async (message: Uint8Array) => {
    counted.signs += 1;
    return signer.sign(message);
  };
  counted.publicKey = () => signer.publicKey();
  return counted;
}

/** Sealer, integrator, heartbeat and an in-process witness over in-memory stores, on one clock (ms). */
async function idleLog(witnessClient?: (real: IntegratorWitness['client']) => IntegratorWitness['client']) {
  let nowMs = INTEGRATION_NOW_MS;
  const clock = () => nowMs;
  const logSigner = counting(testLogSigner());
  const witnessSigner = counting(testWitnessSigner());
  const { client, policy } = await inProcessWitness({ clock, signer: witnessSigner });
  let calls = 0;
  const real = {
    addCheckpoint: async (body: string) => {
      calls += 1;
      return client.addCheckpoint(body);
    },
  };
  const witness: IntegratorWitness = { client: witnessClient?.(real) ?? real, policy, maxAgeSeconds: MAX_AGE };
  const { deployment, notices, write, ...table } = inProcessIntegration();
  const metrics = new FakeMetrics();
  const integrator = table.integrator({ signer: logSigner, witness, metrics, clock });
  const heartbeat = (w: IntegratorWitness | null = witness) =>
    new DeploymentHeartbeat({
      deployment,
      logKey: logSigner,
      witness: w,
      thresholdSeconds: THRESHOLD,
      metrics,
      logger: fakeLogger(),
      clock,
    });
  let n = 0;
  const writeAndIntegrate = async (lineageId = FACTORY_LINEAGE_ID) => {
    n += 1;
    await write(lineageId, `r-${n}`);
    return integrator.integrate(notices.splice(0));
  };
  const check = (note: string | null | undefined, atSeconds: number) =>
    checkPolicy({ note: note ?? '', policy, maxAgeSeconds: MAX_AGE, nowSeconds: atSeconds });
  return {
    deployment,
    metrics,
    logSigner,
    witnessSigner,
    heartbeat,
    writeAndIntegrate,
    check,
    witnessCalls: () => calls,
    advance: (seconds: number) => {
      nowMs += seconds * 1000;
    },
    nowSeconds: () => Math.floor(nowMs / 1000),
  };
}

const cosignatureTimes = (note: string | null | undefined) => parseSignedNote(note ?? '').signatures.length - 1; // every line after the log's own signature

describe('the integrator heartbeat (docs/deployment-log.md, "Freshness window and interval")', () => {
  it('an idle log: within the threshold nothing is submitted; past it the same checkpoint is cosigned anew with no log-key Sign', async (context: TestContext) => {
    const s = await idleLog();
    const first = await s.writeAndIntegrate();
    const t0 = s.nowSeconds();
    expect(first.witnessStatus).toBe(200);
    const signsAfterIntegration = { log: s.logSigner.signs, witness: s.witnessSigner.signs };
    const callsAfterIntegration = s.witnessCalls();

    s.advance(THRESHOLD - 1);
    expect(await s.heartbeat().beat()).toMatchObject({ kind: 'FRESH', ageSeconds: THRESHOLD - 1 });
    expect(s.witnessCalls()).toBe(callsAfterIntegration);

    s.advance(1);
    const report = await s.heartbeat().beat();
    expect(report).toMatchObject({ kind: 'SUBMITTED', reason: 'AGED', witnessStatus: 200 });
    const published = s.deployment.head?.published;
    expect(published).toBe(report.kind === 'SUBMITTED' ? report.published : undefined);
    // The same checkpoint (the log's one signature), with a cosignature of the heartbeat's time.
    expect(parseSignedNote(published ?? '').text).toBe(parseSignedNote(first.checkpoint ?? '').text);
    expect(cosignatureTimes(published)).toBe(1);
    expect(s.check(published, s.nowSeconds())).toMatchObject({ kind: 'ACCEPTED', quorumTime: t0 + THRESHOLD });
    expect(s.logSigner.signs).toBe(signsAfterIntegration.log);
    expect(s.witnessSigner.signs).toBe(signsAfterIntegration.witness + 1);
    expect(s.metrics.get('Heartbeat:outcome=PUBLISHED')).toBe(1);
    expect(s.metrics.get('Heartbeat:outcome=FRESH')).toBe(1);

    // Past the maximum age of the first cosignature, the heartbeat's note still passes; the first does not.
    const later = t0 + MAX_AGE + 1;
    expect(s.check(first.published, later)).toMatchObject({ refusal: PolicyRefusal.QUORUM_STALE });
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'deployment log (idle)',
        attack: 'no write for longer than the maximum age; the heartbeat runs each minute',
        reader: 'integrator heartbeat',
        expected: 'cosigned anew, no log-key Sign',
      },
      s.check(published, later).kind === 'ACCEPTED' && s.logSigner.signs === signsAfterIntegration.log
        ? 'cosigned anew, no log-key Sign'
        : 'stale or signed',
    );
  });

  it('a head the witness did not cosign at its integration (unreachable) is published by the next heartbeat, with its consistency proof', async () => {
    let reachable = true;
    const s = await idleLog((real) => ({
      addCheckpoint: (body) => (reachable ? real.addCheckpoint(body) : Promise.reject(new Error('ECONNREFUSED'))),
    }));
    const first = await s.writeAndIntegrate();
    reachable = false;
    const second = await s.writeAndIntegrate(B);
    expect(second.published).toBeNull();
    expect(s.deployment.head?.published).toBe(first.published);
    reachable = true;
    const logSigns = s.logSigner.signs;
    const report = await s.heartbeat().beat();
    expect(report).toMatchObject({ kind: 'SUBMITTED', reason: 'UNPUBLISHED', size: 2, witnessStatus: 200 });
    expect(s.check(s.deployment.head?.published, s.nowSeconds())).toMatchObject({
      kind: 'ACCEPTED',
      checkpoint: { size: 2 },
    });
    expect(s.logSigner.signs).toBe(logSigns);
  });

  it('a deployment head rolled back behind the witness gets a 409: nothing is published and its cosignatures age out', async (context: TestContext) => {
    const s = await idleLog();
    await s.writeAndIntegrate();
    const old = structuredClone(s.deployment.head);
    await s.writeAndIntegrate(B);
    s.deployment.head = old; // the table writer puts back the size-1 head with its cosigned note
    s.advance(THRESHOLD);
    const report = await s.heartbeat().beat();
    expect(report).toMatchObject({ kind: 'SUBMITTED', published: null, witnessStatus: 409 });
    expect(s.deployment.head?.published).toBe(old?.published);
    s.advance(MAX_AGE - THRESHOLD + 1);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment head',
        attack: 'restore an older cosigned deployment head; the heartbeat runs',
        reader: 'integrator heartbeat',
        expected: 'witness 409, not cosigned anew',
      },
      report.kind === 'SUBMITTED' && report.published === null
        ? `witness ${report.witnessStatus}, not cosigned anew`
        : 'cosigned anew',
    );
    expect(s.check(s.deployment.head?.published, s.nowSeconds())).toMatchObject({
      refusal: PolicyRefusal.QUORUM_STALE,
    });
  });

  it('a head item that does not authenticate is refused (LogStateError); no witness or an empty log submits nothing', async () => {
    const s = await idleLog();
    expect(await s.heartbeat().beat()).toEqual({ kind: 'EMPTY_LOG' });
    await s.writeAndIntegrate();
    expect(await s.heartbeat(null).beat()).toEqual({ kind: 'NO_WITNESS' });
    const head = s.deployment.head;
    if (!head) throw new Error('no head');
    s.deployment.head = { ...head, indexRoot: '00'.repeat(32) };
    const calls = s.witnessCalls();
    await expect(s.heartbeat().beat()).rejects.toThrow(LogStateError);
    expect(s.witnessCalls()).toBe(calls);
  });
});

describe('heartbeatDue and the threshold (docs/deployment-log.md, "Freshness window and interval")', () => {
  it('a third of the maximum age; a maximum age under 3 s is refused', () => {
    expect(heartbeatThresholdSeconds(180)).toBe(60);
    expect(heartbeatThresholdSeconds(600)).toBe(200);
    expect(() => heartbeatThresholdSeconds(2)).toThrow(/3 or more/);
    expect(() => heartbeatThresholdSeconds(Number.NaN)).toThrow();
  });

  it('no published note, or one that does not meet the policy, is due as UNPUBLISHED; quorum none is never due', async () => {
    const policy = parsePolicy(`log ${formatVerifierKey(TEST_LOG_KEY)}\nquorum none\n`);
    const base = { headSize: 1, maxAgeSeconds: MAX_AGE, thresholdSeconds: THRESHOLD, nowSeconds: 1 };
    expect(heartbeatDue({ ...base, policy, published: null })).toEqual({ kind: 'DUE', reason: 'UNPUBLISHED' });
    expect(heartbeatDue({ ...base, policy, published: 'not a note' })).toEqual({ kind: 'DUE', reason: 'UNPUBLISHED' });
    const signer = testLogSigner();
    const note = await signCheckpoint({ origin: signer.keyName, size: 1, rootHash: new Uint8Array(32) }, signer);
    expect(heartbeatDue({ ...base, policy, published: note })).toEqual({
      kind: 'FRESH',
      quorumTime: null,
      ageSeconds: null,
    });
    expect(heartbeatDue({ ...base, headSize: 2, policy, published: note })).toEqual({
      kind: 'DUE',
      reason: 'UNPUBLISHED',
    });
  });

  it('only the scheduled heartbeat input is a heartbeat event; an SQS batch is not', () => {
    expect(isHeartbeatEvent({ reseal: 'heartbeat' })).toBe(true);
    expect(isHeartbeatEvent({ reseal: 'heartbeat', extra: 1 })).toBe(false);
    expect(isHeartbeatEvent({ Records: [] })).toBe(false);
    expect(isHeartbeatEvent(null)).toBe(false);
  });
});
