import { describe, expect, it } from 'vitest';
import { LogVerificationError } from '../../../client/errors';
import { ResealSession } from '../../../frameworks/openai-agents/reseal-session';
import type { JsonValue } from '../../../shared/canonical/canonical-json';
import { sessionAddPayload } from '../../../shared/session/session-history';
import { integratedStack } from '../../helpers/integrated-stack';
import { rolledBackLineage } from '../../helpers/rolled-back-lineage';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-session-fresh');
const items = [
  sessionAddPayload({ role: 'user', content: 'hello' }) as unknown as JsonValue,
  sessionAddPayload({ role: 'user', content: 'again' }) as unknown as JsonValue,
] as const;

/** A session over `s`'s client and table, without a checkpoint store (a cold client). */
const sessionOn = (s: ReturnType<typeof integratedStack>) =>
  new ResealSession(s.client(), s.store, null, {
    lineageId: LINEAGE,
    sessionId: 's-1',
    generationEpoch: 1,
    boundaryAtMs: 0,
    manifest: () => ({ env: {}, structuralKeys: [], claimDependencyMap: {} }),
  });

// The session's history placed against the deployment log (docs/frameworks.md, "OpenAI Agents
// SDK (TypeScript)"; docs/deployment-log.md, "Clients"), as the Python adapters do.
describe('ResealSession.getItems: freshness of the history', () => {
  it('a history rolled back behind the index throws NOT_NEWEST (UNVERIFIED_TAMPER_RISK), never returns the older items', async () => {
    const s = await rolledBackLineage(LINEAGE, items);
    const refused = await sessionOn(s)
      .getItems()
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(LogVerificationError);
    expect(refused).toMatchObject({ verdict: 'UNVERIFIED_TAMPER_RISK' });
    expect((refused as Error).message).toMatch(/not the newest/);
  });

  it('the whole integrated history is returned', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0', payload: items[0] });
    await s.send({ lineageId: LINEAGE, residualId: 'r-1', payload: items[1] });
    await s.integrate();
    expect(await sessionOn(s).getItems()).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'user', content: 'again' },
    ]);
  });
});
