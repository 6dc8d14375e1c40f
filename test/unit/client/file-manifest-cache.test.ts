import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BatchGetItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { manifestItem } from '../../../adapters/manifest-item';
import { clientLineageStore } from '../../../client/client-lineage-store';
import { FileManifestCache } from '../../../client/file-manifest-cache';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { checkRecordIntegrity } from '../../../shared/seal/record-integrity';
import { sealRecord } from '../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { MemoryManifestCache } from '../../../shared/triage/memory-manifest-cache';
import { answeringDynamoDB } from '../../helpers/answering-dynamodb';
import { sealInput, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';

const TABLE = 'reseal-table';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reseal-manifests-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A table holding `record` (its manifest in its own item); `commands` counts what each read sent. */
function tableOf(record: SealedRecord) {
  const { manifest: _m, ...rest } = record;
  const recordItem = { record: { S: canonicalJson(rest) } };
  const commands: unknown[] = [];
  const client = answeringDynamoDB(async (command: unknown) => {
    commands.push(command);
    if (command instanceof BatchGetItemCommand) return { Responses: { [TABLE]: [manifestItem(record)] } };
    if (command instanceof GetItemCommand) return { Item: recordItem };
    return {};
  });
  const manifestReads = () => commands.filter((c) => c instanceof BatchGetItemCommand).length;
  return { client, commands, manifestReads };
}

const sealed = () => sealRecord(sealInput(0), null, testAnchor(), TEST_NOW_MS);
const keyOf = (record: SealedRecord) => LineageKeys.manifest(TEST_LINEAGE_ID, record.header.manifestDigest);
const keptFiles = (at = dir) => readdirSync(at).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));

describe('FileManifestCache: manifests kept across processes, nothing read from disk trusted', () => {
  it('two clients sharing the directory (two CLI runs) read the manifest item once in total, not once each', async () => {
    const record = await sealed();
    const table = tableOf(record);
    for (let run = 0; run < 2; run++) {
      // A new process each run: a new store and a new cache over the same directory.
      const store = clientLineageStore(table.client, TABLE, new FileManifestCache(dir));
      expect(await store.readRecord(TEST_LINEAGE_ID, 0)).toEqual(JSON.parse(canonicalJson(record)));
    }
    expect(table.commands.filter((c) => c instanceof GetItemCommand)).toHaveLength(2);
    expect(table.manifestReads()).toBe(1);
    expect(keptFiles()).toHaveLength(1);
    // In memory (the SDK's default), each new process reads it again.
    const memory = tableOf(record);
    for (let run = 0; run < 2; run++) await clientLineageStore(memory.client, TABLE).readRecord(TEST_LINEAGE_ID, 0);
    expect(memory.manifestReads()).toBe(2);
  });

  it('a kept file edited to another manifest is not used: the item is read, the record intact, the file rewritten', async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    await cache.set(keyOf(record), record.manifest);
    const path = cache.pathOf(keyOf(record));
    const file = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...file, manifest: { ...record.manifest, structuralKeys: [] } }));

    const table = tableOf(record);
    const read = await clientLineageStore(table.client, TABLE, new FileManifestCache(dir)).readRecord(
      TEST_LINEAGE_ID,
      0,
    );
    expect(checkRecordIntegrity(read)).not.toHaveProperty('reason');
    expect(read).toEqual(JSON.parse(canonicalJson(record)));
    expect(table.manifestReads()).toBe(1);
    expect(JSON.parse(readFileSync(path, 'utf8')).manifest).toEqual(JSON.parse(canonicalJson(record.manifest)));
  });

  it('a file that does not parse, is cut short, or is of another shape reads as absent and is removed; never an error', async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    const key = keyOf(record);
    const whole = JSON.stringify({ formatVersion: 1, key, manifest: record.manifest });
    for (const text of ['not json', whole.slice(0, whole.length / 2), '[]', '{"formatVersion":1,"key":1}', '']) {
      writeFileSync(cache.pathOf(key), text);
      expect(await cache.get(key)).toBeUndefined();
      expect(keptFiles()).toEqual([]);
    }
    // And through the store: a half-written file never stops a read.
    writeFileSync(cache.pathOf(key), whole.slice(0, 40));
    const table = tableOf(record);
    const read = await clientLineageStore(table.client, TABLE, cache).readRecord(TEST_LINEAGE_ID, 0);
    expect(read).toEqual(JSON.parse(canonicalJson(record)));
    expect(table.manifestReads()).toBe(1);
    expect(await cache.get(key)).toEqual(JSON.parse(canonicalJson(record.manifest)));
  });

  it("a file kept under another key's name answers nothing for this key", async () => {
    const cache = new FileManifestCache(dir);
    await cache.set('MANIFEST#a#d', { a: 1 });
    writeFileSync(cache.pathOf('MANIFEST#b#d'), readFileSync(cache.pathOf('MANIFEST#a#d')));
    expect(await cache.get('MANIFEST#b#d')).toBeUndefined();
    expect(await cache.get('MANIFEST#a#d')).toEqual({ a: 1 });
  });

  it('a hostile lineage id never leaves the directory: every file is named by a hash, in the directory itself', async () => {
    const inner = join(dir, 'cache');
    const cache = new FileManifestCache(inner);
    const hostile = [
      '../../escaped',
      '/etc/passwd',
      '..',
      'a/../../b',
      'nul\u0000byte',
      'back\\slash\\..\\..',
      '\ud800',
      '\udfff',
      'x'.repeat(5000),
    ];
    for (const [i, lineageId] of hostile.entries()) {
      const key = LineageKeys.manifest(lineageId, 'f'.repeat(64));
      expect(dirname(cache.pathOf(key))).toBe(inner);
      await cache.set(key, { i });
    }
    expect(readdirSync(dir)).toEqual(['cache']);
    expect(keptFiles(inner)).toHaveLength(hostile.length);
    // Distinct keys, lone surrogates included, keep distinct files.
    for (const [i, lineageId] of hostile.entries())
      expect(await cache.get(LineageKeys.manifest(lineageId, 'f'.repeat(64)))).toEqual({ i });
  });

  it('keeps at most its bound of files, the least recently used removed first (a hit counts as a use)', async () => {
    const cache = new FileManifestCache(dir, 3);
    const age = (key: string, secondsAgo: number) => {
      const at = new Date(Date.now() - secondsAgo * 1000);
      utimesSync(cache.pathOf(key), at, at);
    };
    for (const [i, key] of ['k0', 'k1', 'k2'].entries()) {
      await cache.set(key, { i });
      age(key, 100 - i);
    }
    expect(await cache.get('k0')).toEqual({ i: 0 }); // k0 is now the newest used
    await cache.set('k3', { i: 3 });
    expect(keptFiles()).toHaveLength(3);
    expect(await cache.get('k1')).toBeUndefined();
    expect(await cache.get('k0')).toEqual({ i: 0 });
    expect(await cache.get('k2')).toEqual({ i: 2 });
    expect(await cache.get('k3')).toEqual({ i: 3 });
  });

  it('writes atomically: a temporary file renamed over the name, so a reader of another process finds a whole file, never a cut one', async () => {
    const writer = new FileManifestCache(dir);
    const reader = new FileManifestCache(dir);
    const manifests = Array.from({ length: 40 }, (_, i) => ({ i, pad: 'x'.repeat(60_000) }));
    await writer.set('k', manifests[0]);
    let misses = 0;
    let reads = 0;
    let writing = true;
    const reading = (async () => {
      while (writing) {
        const got = await reader.get('k');
        reads++;
        if (got === undefined) misses++;
        else expect(manifests).toContainEqual(got);
      }
    })();
    for (const manifest of manifests) await Promise.all([writer.set('k', manifest), writer.set('k', manifest)]);
    writing = false;
    await reading;
    // Once the file exists, every read finds one whole: a cut file would read as absent (and be removed).
    expect(reads).toBeGreaterThan(0);
    expect(misses).toBe(0);
    expect(await reader.get('k')).toEqual(manifests.at(-1));
    expect(readdirSync(dir)).toEqual([writer.pathOf('k').slice(dir.length + 1)]);
  });

  it("removes a dead writer's temporary file once it is old, and never reads one as kept", async () => {
    const cache = new FileManifestCache(dir);
    const stale = join(dir, '.0b9e3a4c-1d2f-4e5a-9b6c-7d8e9f0a1b2c.123.tmp');
    const fresh = join(dir, '.5f4e3d2c-1b0a-4f9e-8d7c-6b5a4f3e2d1c.456.tmp');
    writeFileSync(stale, '{');
    writeFileSync(fresh, '{');
    const old = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(stale, old, old);
    await cache.set('k', { a: 1 });
    expect(readdirSync(dir).sort()).toEqual(
      ['.5f4e3d2c-1b0a-4f9e-8d7c-6b5a4f3e2d1c.456.tmp', cache.pathOf('k').slice(dir.length + 1)].sort(),
    );
    expect(statSync(cache.pathOf('k')).mode & 0o777).toBe(0o600);
  });

  it('a directory it cannot write keeps nothing and throws nothing', async () => {
    const blocked = join(dir, 'file');
    writeFileSync(blocked, '');
    const cache = new FileManifestCache(join(blocked, 'manifests'));
    await expect(cache.set('k', { a: 1 })).resolves.toBeUndefined();
    await expect(cache.get('k')).resolves.toBeUndefined();
    await expect(cache.delete('k')).resolves.toBeUndefined();
  });
});

describe('MemoryManifestCache: the in-memory default', () => {
  it('keeps its bound, least recently used out first, and hands out copies', async () => {
    const cache = new MemoryManifestCache(2);
    await cache.set('a', { v: 1 });
    await cache.set('b', { v: 2 });
    const got = (await cache.get('a')) as { v: number };
    got.v = 9;
    await cache.set('c', { v: 3 });
    expect(cache.size).toBe(2);
    expect(await cache.get('a')).toEqual({ v: 1 });
    expect(await cache.get('b')).toBeUndefined();
    await cache.delete('a');
    expect(await cache.get('a')).toBeUndefined();
  });
});
