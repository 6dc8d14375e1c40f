import { describe, expect, it } from 'vitest';
import type { LineageReader, ResealClient } from '../../../client/reseal-client';
import { ResealSession } from '../../../frameworks/openai-agents/reseal-session';
import { LocalWriterSigner } from '../../../shared/authorship/local-writer-signer';
import { InvalidInputError } from '../../../shared/errors';

// Bad input to the OpenAI Agents SDK session is refused before any AWS call (docs/frameworks.md,
// "OpenAI Agents SDK (TypeScript)"): nothing here reaches a stack.
const writer = LocalWriterSigner.generate('agent').signer;
const unreachable = new Proxy(
  {},
  {
    get: (_target, name) => {
      throw new Error(`no AWS call expected (${String(name)})`);
    },
  },
);

describe('ResealSession: bad input gets a clear error', () => {
  it.each([
    ['no writer key', { label: 'bot' }, 'writerKeyFile'],
    ['no lineage', { writer }, 'label'],
    ['a negative epoch', { writer, label: 'bot', generationEpoch: -1 }, 'generationEpoch'],
    ['a fractional epoch', { writer, label: 'bot', generationEpoch: 1.5 }, 'generationEpoch'],
  ])('connect with %s is refused, naming the option', async (_what, options, path) => {
    const refused = await ResealSession.connect(options).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).issues.map((issue) => issue.path)).toContain(path);
  });

  it.each([-1, 1.5, Number.NaN])('getItems(%s) is refused before the history is read', async (limit) => {
    const session = new ResealSession(unreachable as ResealClient, unreachable as LineageReader, null, {
      lineageId: 'bot.lineage',
      sessionId: 's-1',
      generationEpoch: 1,
      boundaryAtMs: 0,
      manifest: () => ({ env: {}, structuralKeys: [], claimDependencyMap: {} }),
    });
    await expect(session.getItems(limit)).rejects.toThrow(
      /invalid getItems limit at limit: must be a non-negative integer/,
    );
    expect(await session.getSessionId()).toBe('bot.lineage');
  });
});
