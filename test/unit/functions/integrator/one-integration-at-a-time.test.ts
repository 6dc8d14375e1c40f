import { describe, expect, it } from 'vitest';
import { integrateThroughConflicts } from '../../../../functions/integrator/integrate-through-conflicts';
import { LEASE_OVERRIDE_AFTER_MS, LEASE_SIGN_MARGIN_MS } from '../../../../functions/integrator/integrator-service';
import type { IntegratorWitness } from '../../../../functions/integrator/witness-submission';
import { IntegrationLeaseHeldError } from '../../../../shared/errors';
import { INTEGRATION_LEASE_MS } from '../../../../shared/ports/integration-lease';
import type { NoteSigner } from '../../../../shared/ports/note-signer';
import { FakeMetrics } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { InMemoryIntegrationLease } from '../../../helpers/in-memory-integration-lease';
import { INTEGRATION_NOW_MS, inProcessIntegration } from '../../../helpers/in-process-integration';
import { inProcessWitness } from '../../../helpers/in-process-witness';
import { testLogSigner } from '../../../helpers/pipeline-keys';
import { testLineageId } from '../../../helpers/writer-factories';

const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-b')];
const NOW_MS = INTEGRATION_NOW_MS;

/** The log key, counting its signatures (each one a `kms:Sign` on AWS). */
function countingSigner(): NoteSigner & { signs: number } {
  const real = testLogSigner();
  const counting = {
    keyName: real.keyName,
    signs: 0,
    publicKey: () => real.publicKey(),
    sign: async (message: Uint8Array) => {
      counting.signs += 1;
      return real.sign(message);
    },
  };
  return counting;
}

/** The real sealer on in-memory stores ({@link inProcessIntegration}), and integrator instances ("Lambda instances") over one table. */
function table() {
  const base = inProcessIntegration();
  const signer = countingSigner();
  const lease = new InMemoryIntegrationLease();
  let clockMs = NOW_MS;
  const instance = (options: { lease?: boolean; witness?: IntegratorWitness | null; metrics?: FakeMetrics } = {}) =>
    base.integrator({
      signer,
      witness: options.witness ?? null,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      clock: () => clockMs,
      ...(options.lease === false ? {} : { lease }),
    });
  /** Seals one write; the notices it sent. */
  const write = async (lineageId: string, residualId: string) => {
    await base.write(lineageId, residualId);
    return base.notices.splice(0);
  };
  const setClock = (ms: number) => {
    clockMs = ms;
  };
  return { deployment: base.deployment, signer, lease, instance, write, setClock };
}

/** Both batches integrated at once by two instances, each through the handler's retries. */
async function concurrently(withLease: boolean) {
  const t = table();
  const [first, second] = [await t.write(A, 'r-0'), await t.write(B, 'r-0')];
  const [one, two] = [t.instance({ lease: withLease }), t.instance({ lease: withLease })];
  const logger = { warn: () => undefined };
  const sleep = () => new Promise((resolve) => setImmediate(resolve));
  await Promise.all([
    integrateThroughConflicts(one, first, logger, sleep),
    integrateThroughConflicts(two, second, logger, sleep),
  ]);
  return t;
}

describe('one integration at a time (docs/deployment-log.md, "One integration at a time")', () => {
  it('two concurrent integrations under the lease make exactly one log-key Sign per published leaf', async () => {
    const t = await concurrently(true);
    expect(t.deployment.head?.size).toBe(2);
    expect(t.deployment.appends).toBe(2);
    expect(t.signer.signs).toBe(2);
    // The loser found the lease held at least once, and waited instead of signing.
    expect(t.lease.takes).toBeGreaterThan(t.lease.taken);
  });

  it('without the lease the same race signs a checkpoint whose commit is lost (the waste the lease removes)', async () => {
    const t = await concurrently(false);
    expect(t.deployment.head?.size).toBe(2);
    expect(t.signer.signs).toBeGreaterThan(2);
  });

  it('a lease held by another integration: nothing read for signing, nothing signed; taken again once it lapses', async () => {
    const t = table();
    const notices = await t.write(A, 'r-0');
    t.lease.item = { holder: 'another', expiresAtMs: NOW_MS + 5_000 };
    await expect(t.instance().integrate(notices)).rejects.toThrow(IntegrationLeaseHeldError);
    expect(t.signer.signs).toBe(0);
    t.setClock(NOW_MS + 5_000);
    expect((await t.instance().integrate(notices)).integrated).toEqual([A]);
    expect(t.signer.signs).toBe(1);
    // Released after the commit: the next integration takes it at once.
    expect(t.lease.item?.expiresAtMs).toBe(0);
  });

  it("a lease claiming to last past the longest one an integrator takes is no integrator's (a table writer's): taken", async () => {
    const t = table();
    const notices = await t.write(A, 'r-0');
    t.lease.item = { holder: 'forged', expiresAtMs: Number.MAX_SAFE_INTEGER };
    expect((await t.instance().integrate(notices)).integrated).toEqual([A]);
  });

  it("a lease whose expiry is not a number (a table writer's string) is taken, never a stall", async () => {
    const t = table();
    const notices = await t.write(A, 'r-0');
    t.lease.item = { holder: 'forged', expiresAtMs: '1' };
    expect((await t.instance().integrate(notices)).integrated).toEqual([A]);
  });

  it('a running lease written by an instance whose clock is a few seconds ahead is held, not taken as forged', async () => {
    const t = table();
    const notices = await t.write(A, 'r-0');
    t.lease.item = { holder: 'ahead', expiresAtMs: NOW_MS + 3_000 + INTEGRATION_LEASE_MS };
    await expect(t.instance().integrate(notices)).rejects.toThrow(IntegrationLeaseHeldError);
    expect(t.signer.signs).toBe(0);
  });

  it('a hold this instance saw a whole lease ago is over: a lease held anew is measured from now, not overridden at once', async () => {
    const t = table();
    const notices = await t.write(A, 'r-0');
    const warm = t.instance();
    t.lease.item = { holder: 'first', expiresAtMs: NOW_MS + INTEGRATION_LEASE_MS };
    await expect(warm.integrate(notices)).rejects.toThrow(IntegrationLeaseHeldError);
    const later = NOW_MS + 10 * LEASE_OVERRIDE_AFTER_MS;
    t.setClock(later);
    t.lease.item = { holder: 'second', expiresAtMs: later + INTEGRATION_LEASE_MS };
    await expect(warm.integrate(notices)).rejects.toThrow(IntegrationLeaseHeldError);
    expect(t.signer.signs).toBe(0);
  });

  it('a lease a table writer keeps re-putting delays integrations by at most LEASE_OVERRIDE_AFTER_MS, measured by the integrator, then is overridden', async () => {
    const t = table();
    const notices = await t.write(A, 'r-0');
    const metrics = new FakeMetrics();
    const warm = t.instance({ metrics });
    let elapsedMs = 0;
    // The writer re-puts a plausible lease (expiry now + 60 s) every 15 s; the warm instance tries every 15 s.
    for (; elapsedMs < LEASE_OVERRIDE_AFTER_MS; elapsedMs += 15_000) {
      t.setClock(NOW_MS + elapsedMs);
      t.lease.item = { holder: 'attacker', expiresAtMs: NOW_MS + elapsedMs + INTEGRATION_LEASE_MS };
      await expect(warm.integrate(notices)).rejects.toThrow(IntegrationLeaseHeldError);
    }
    expect(t.signer.signs).toBe(0);
    t.setClock(NOW_MS + elapsedMs);
    t.lease.item = { holder: 'attacker', expiresAtMs: NOW_MS + elapsedMs + INTEGRATION_LEASE_MS };
    expect((await warm.integrate(notices)).integrated).toEqual([A]);
    expect(t.signer.signs).toBe(1);
    expect(metrics.get('IntegrationLease:outcome=HELD')).toBe(LEASE_OVERRIDE_AFTER_MS / 15_000);
    expect(metrics.get('IntegrationLease:outcome=OVERRIDDEN')).toBe(1);
    // The writer's lease item is left alone (the integration never held it).
    expect(t.lease.item?.holder).toBe('attacker');
  });

  it("a batch SQS first received LEASE_OVERRIDE_AFTER_MS ago is not held again by a cold instance's fresh clock", async () => {
    const t = table();
    const notices = await t.write(A, 'r-0');
    t.lease.item = { holder: 'attacker', expiresAtMs: NOW_MS + INTEGRATION_LEASE_MS };
    await expect(t.instance().integrate(notices, NOW_MS - LEASE_OVERRIDE_AFTER_MS + 1)).rejects.toThrow(
      IntegrationLeaseHeldError,
    );
    expect((await t.instance().integrate(notices, NOW_MS - LEASE_OVERRIDE_AFTER_MS)).integrated).toEqual([A]);
  });

  it('a lease taken counts TAKEN and forgets the held time: a later held lease waits the full bound again', async () => {
    const t = table();
    const metrics = new FakeMetrics();
    const warm = t.instance({ metrics });
    t.lease.item = { holder: 'another', expiresAtMs: NOW_MS + 5_000 };
    await expect(warm.integrate(await t.write(A, 'r-0'))).rejects.toThrow(IntegrationLeaseHeldError);
    t.setClock(NOW_MS + LEASE_OVERRIDE_AFTER_MS - 1);
    expect((await warm.integrate(await t.write(B, 'r-0'))).integrated).toEqual([B]);
    expect(metrics.get('IntegrationLease:outcome=TAKEN')).toBe(1);
    t.lease.item = { holder: 'another', expiresAtMs: NOW_MS + LEASE_OVERRIDE_AFTER_MS + 5_000 };
    t.setClock(NOW_MS + LEASE_OVERRIDE_AFTER_MS + 1);
    await expect(warm.integrate(await t.write(A, 'r-1'))).rejects.toThrow(IntegrationLeaseHeldError);
  });

  it('a lease that lapses before the signature: nothing signed, nothing committed', async () => {
    const t = table();
    const notices = await t.write(A, 'r-0');
    const slow = t.instance();
    const lease = t.lease;
    // The integration takes the lease, then the clock passes the margin before it would sign.
    const take = lease.take.bind(lease);
    lease.take = async (holder, nowMs, untilMs) => {
      const taken = await take(holder, nowMs, untilMs);
      t.setClock(untilMs - LEASE_SIGN_MARGIN_MS);
      return taken;
    };
    await expect(slow.integrate(notices)).rejects.toThrow(/lapsed before the signature/);
    expect(t.signer.signs).toBe(0);
    expect(t.deployment.appends).toBe(0);
  });
});

describe('a cold integrator racing a warm one (docs/deployment-log.md, "Cold start")', () => {
  it('a head committed and cosigned while the cold one asks its witness is no rollback: no DEPLOYMENT_ROLLBACK, integrated from the new head', async () => {
    const t = table();
    const { client, policy } = await inProcessWitness({ clock: () => NOW_MS });
    const real = { addCheckpoint: client.addCheckpoint };
    const warm = t.instance({ lease: false, witness: { client: real, policy, maxAgeSeconds: 180 } });
    await warm.integrate(await t.write(A, 'r-0'));
    const later = await t.write(B, 'r-0');
    // The cold instance's first question to the witness lands after the warm one committed and
    // submitted the next checkpoint: the witness answers 409 with a size larger than the head read.
    let raced = false;
    const racing = {
      addCheckpoint: async (body: string) => {
        if (!raced) {
          raced = true;
          await warm.integrate(later);
        }
        return real.addCheckpoint(body);
      },
    };
    const cold = t.instance({ lease: false, witness: { client: racing, policy, maxAgeSeconds: 180 } });
    const more = await t.write(A, 'r-1');
    await integrateThroughConflicts(cold, more, { warn: () => undefined });
    expect(t.deployment.evidence.map((e) => e.evidence.kind)).toEqual([]);
    expect(t.deployment.head?.size).toBe(3);
  });
});
