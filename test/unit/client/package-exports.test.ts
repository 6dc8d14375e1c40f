import { describe, expect, it } from 'vitest';

describe('package exports: agents import the client and the core by package name', () => {
  it('"reseal" is the agent client and "reseal/core" the domain core', async () => {
    const client = await import('reseal');
    const core = await import('reseal/core');
    expect(typeof client.ResealClient).toBe('function');
    expect(typeof client.writeRequest).toBe('function');
    expect(typeof core.isolateDelta).toBe('function');
    expect(typeof core.evaluateWrite).toBe('function');
  });
});
