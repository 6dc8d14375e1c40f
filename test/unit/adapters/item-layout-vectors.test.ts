import { describe, expect, it } from 'vitest';
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
});
