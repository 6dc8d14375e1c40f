import { describe, expect, it } from 'vitest';
import { LogVerificationError } from '../../../client/errors';
import type { LineageReader, ResealClient } from '../../../client/reseal-client';
import type { WriteOutcome } from '../../../client/write-outcomes';
import { SessionWriteUnprovenError } from '../../../frameworks/openai-agents/errors';
import { ResealSession } from '../../../frameworks/openai-agents/reseal-session';
import { FreshnessState } from '../../../shared/integrator/record-freshness';

/**
 * A client whose write is sealed with the given freshness: the session's own gate is all that
 * decides what `addItems` does with it (docs/frameworks.md, "OpenAI Agents SDK (TypeScript)":
 * a write counts only on a proven outcome).
 */
function sessionSealing(state: FreshnessState | null) {
  const waits: unknown[] = [];
  const client = {
    publishWrite: async (request: unknown) => ({ request, publishedAtMs: 1_000 }),
    waitForOutcome: async (_lineageId: string, _residualId: string, options: unknown) => {
      waits.push(options);
      return {
        kind: 'SEALED',
        freshness:
          state === null
            ? null
            : {
                state,
                checkpointSize: 3,
                reason: `the chain says ${state}`,
                witnessing: 'WITNESSED',
                windowSeconds: 182,
              },
      } as unknown as WriteOutcome;
    },
  };
  const session = new ResealSession(client as unknown as ResealClient, {} as LineageReader, null, {
    lineageId: 'bot.lineage',
    sessionId: 's-1',
    generationEpoch: 1,
    boundaryAtMs: 0,
    manifest: () => ({ env: {}, structuralKeys: [], claimDependencyMap: {} }),
  });
  return { session, waits };
}

const item = { role: 'user', content: 'my order is 7' } as const;

describe('ResealSession.addItems: a write counts only once proven', () => {
  it('waits past the seal until the write is proven (untilProven), and returns on PROVEN', async () => {
    const { session, waits } = sessionSealing(FreshnessState.PROVEN);
    await expect(session.addItems([item])).resolves.toBeUndefined();
    expect(waits).toEqual([expect.objectContaining({ untilProven: true })]);
  });

  it.each([FreshnessState.NOT_NEWEST, FreshnessState.INCONSISTENT, FreshnessState.REFUSED])(
    'a seal the deployment log contradicts (%s) throws LogVerificationError UNVERIFIED_TAMPER_RISK',
    async (state) => {
      const refused = await sessionSealing(state)
        .session.addItems([item])
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(LogVerificationError);
      expect(refused).toMatchObject({ verdict: 'UNVERIFIED_TAMPER_RISK' });
      expect((refused as Error).message).toContain(`the deployment log says ${state}: the chain says ${state}`);
    },
  );

  it.each([FreshnessState.SEALED_AWAITING_INTEGRATION, null])(
    'a seal still unproven at the deadline (%s) throws SessionWriteUnprovenError, saying not to add it again',
    async (state) => {
      const unproven = await sessionSealing(state)
        .session.addItems([item])
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(unproven).toBeInstanceOf(SessionWriteUnprovenError);
      expect((unproven as Error).message).toMatch(/is sealed but not proven: .*do not add it again/);
    },
  );
});
