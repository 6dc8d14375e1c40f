import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { createIntegratorHandler } from '../../../../functions/integrator/create-handler';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { testAnchor } from '../../../helpers/seal-factories';
import { testLineageId } from '../../../helpers/writer-factories';

// Whoever may put a message in front of the integrator (its invokers, the integration queue's
// `sqs:*`) sends a genuine notice with its `auth` mangled (docs/deployment-log.md, "Sealed-run
// notices": the schema is strict, a malformed message is logged and dropped): the message is
// dropped before any Decrypt, the rest of the batch integrates as it would without it, the batch
// is never failed for it.
const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-malformed-b')];

async function handlerOverTable() {
  const table = inProcessIntegration({ sealer: { signLineageCheckpoints: false } });
  await table.write(A, 'r-0');
  await table.write(B, 'r-0');
  const [a, b] = table.notices.splice(0) as [SealedRunNotice, SealedRunNotice];
  const anchor = testAnchor();
  const verifyMac = vi.spyOn(anchor, 'verifyMac');
  const logger = new Logger({ serviceName: 'reseal-integrator-test', logLevel: 'SILENT' });
  const dropped = vi.spyOn(logger, 'error');
  const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-integrator-test' });
  vi.spyOn(metrics, 'publishStoredMetrics').mockReturnValue(metrics);
  const handler = createIntegratorHandler(table.integrator({ anchor }), logger, metrics);
  const invoke = (bodies: readonly string[]) =>
    handler(
      sqsEvent(bodies.map((body, i) => sqsRecord(body, undefined, { messageId: `m-${i}` }))),
      lambdaContext('reseal-integrator'),
    );
  const headChecks = () => verifyMac.mock.calls.filter(([message]) => message.byteLength === 32).length;
  return { ...table, a, b, invoke, dropped, headChecks };
}

const mangled: [string, (genuine: NonNullable<SealedRunNotice['auth']>) => unknown][] = [
  ['a 200 KB key blob', (auth) => ({ ...auth, key: 'A'.repeat(200_000) })],
  ['a key blob in URL-safe base64', (auth) => ({ ...auth, key: `${auth.key.slice(0, -4)}-_-_` })],
  ['a mac of 128 hex', (auth) => ({ ...auth, mac: auth.mac.repeat(2) })],
  ['a mac in upper case', (auth) => ({ ...auth, mac: auth.mac.toUpperCase() })],
  ['a mac of non-hex characters', (auth) => ({ ...auth, mac: 'z'.repeat(64) })],
  ['auth a string', (auth) => `${auth.key}:${auth.mac}`],
  ['auth null', () => null],
  ['auth with a third member', (auth) => ({ ...auth, keyId: 'alias/other' })],
];

describe('a genuine notice with its auth mangled: dropped, logged, the batch goes on', () => {
  for (const [name, mangle] of mangled) {
    it(`${name}`, async () => {
      const s = await handlerOverTable();
      const auth = s.a.auth;
      if (!auth) throw new Error('the sealer sent no auth');
      const body = JSON.stringify({ ...s.a, auth: mangle(auth) });
      expect(await s.invoke([body, JSON.stringify(s.b)])).toEqual({ batchItemFailures: [] });
      expect(s.dropped).toHaveBeenCalledWith('malformed sealed-run notice dropped', expect.anything());
      expect(s.noticeKey.opened).toBe(1); // B's key only: nothing of the dropped message is unwrapped
      expect(s.headChecks()).toBe(0); // B's head vouched for by its own notice
      expect(s.deployment.evidence).toEqual([]);
    });
  }

  it('a second auth member in the message text (the first genuine): refused as a duplicate name, never read either way', async () => {
    const s = await handlerOverTable();
    const text = JSON.stringify(s.a);
    const body = `${text.slice(0, -1)},"auth":${JSON.stringify({ key: s.b.auth?.key, mac: 'f'.repeat(64) })}}`;
    expect(await s.invoke([body, JSON.stringify(s.b)])).toEqual({ batchItemFailures: [] });
    expect(s.dropped).toHaveBeenCalledWith('malformed sealed-run notice dropped', expect.anything());
    expect(s.noticeKey.opened).toBe(1);
  });
});
