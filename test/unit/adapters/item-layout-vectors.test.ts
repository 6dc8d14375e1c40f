import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { logHeadOf } from '../../../adapters/head-item';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../../shared/log/log-state';
import { itemLayoutVectors } from '../../helpers/item-layout-vectors';
import vectors from '../../vectors/item-layout.json';

describe('item-layout vectors (test/vectors/item-layout.json)', () => {
  it('are what the real codec writes and reads today: a layout change needs the file regenerated, which breaks the Python reader too', async () => {
    const built = JSON.parse(JSON.stringify(await itemLayoutVectors()));
    expect(built.keys).toEqual(vectors.keys);
    expect(built.items.map((e: { name: string }) => e.name)).toEqual(vectors.items.map((e) => e.name));
    for (const [i, entry] of built.items.entries()) expect(entry, entry.name).toEqual(vectors.items[i]);
    for (const [i, entry] of built.hostile.entries()) expect(entry, entry.name).toEqual(vectors.hostile[i]);
    expect(built.hostile.length).toBe(vectors.hostile.length);
    for (const [i, entry] of built.stored.entries()) expect(entry, entry.name).toEqual(vectors.stored[i]);
    expect(built.stored.length).toBe(vectors.stored.length);
    expect(built).toEqual(vectors);
  });

  it('head states: a legacy head and a small head read as the state each reader must take (docs/sealing.md, "The append\'s layout")', () => {
    expect(vectors.headStates.map((e) => e.name)).toContain('head, small (no tip header, binary frontier)');
    for (const { name, item, state } of vectors.headStates) {
      // The wire form back to AttributeValues: a binary attribute's base64 as bytes.
      const attributes = Object.fromEntries(
        Object.entries(item).map(([key, value]) => [
          key,
          'B' in value ? { B: Buffer.from(value.B as string, 'base64') } : value,
        ]),
      ) as Record<string, AttributeValue>;
      const read = () =>
        headStateOf(claimedLogState(logHeadOf(vectors.lineageId, attributes) as StoredLogHead, vectors.lineageId));
      if (state === null) expect(read, name).toThrow();
      else expect(read(), name).toEqual(state);
    }
  });
});
