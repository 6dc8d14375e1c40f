import { execFileSync } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchGetItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { manifestItem } from '../../../adapters/manifest-item';
import { clientLineageStore } from '../../../client/client-lineage-store';
import { FileManifestCache } from '../../../client/file-manifest-cache';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { MAX_KEPT_MANIFEST_BYTES } from '../../../shared/ports/manifest-cache';
import { checkRecordIntegrity } from '../../../shared/seal/record-integrity';
import { sealRecord } from '../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { answeringDynamoDB } from '../../helpers/answering-dynamodb';
import { sealInput, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';

const TABLE = 'reseal-table';
const OTHER_LINEAGE = `${TEST_LINEAGE_ID}-other`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reseal-manifests-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** A table holding `record` (its manifest in its own item); `manifestReads` counts the manifest item reads. */
function tableOf(record: SealedRecord) {
  const { manifest: _m, ...rest } = record;
  const commands: unknown[] = [];
  const client = answeringDynamoDB(async (command: unknown) => {
    commands.push(command);
    if (command instanceof BatchGetItemCommand) return { Responses: { [TABLE]: [manifestItem(record)] } };
    if (command instanceof GetItemCommand) return { Item: { record: { S: canonicalJson(rest) } } };
    return {};
  });
  return { client, manifestReads: () => commands.filter((c) => c instanceof BatchGetItemCommand).length };
}

const sealed = () => sealRecord(sealInput(0), null, testAnchor(), TEST_NOW_MS);
const keyOf = (record: SealedRecord, lineageId = TEST_LINEAGE_ID) =>
  LineageKeys.manifest(lineageId, record.header.manifestDigest);
const fileOf = (key: string, manifest: unknown) => JSON.stringify({ formatVersion: 1, key, manifest });
const exists = (path: string) => readdirSync(dir).includes(path.slice(dir.length + 1));

/** Reads record 0 through a store over `cache`: the record must come back intact and as sealed. */
async function readThrough(record: SealedRecord, cache: FileManifestCache) {
  const table = tableOf(record);
  const read = await clientLineageStore(table.client, TABLE, cache).readRecord(TEST_LINEAGE_ID, 0);
  expect(checkRecordIntegrity(read)).not.toHaveProperty('reason');
  expect(read).toEqual(JSON.parse(canonicalJson(record)));
  return table.manifestReads();
}

describe('a local user who can write the manifest directory (docs/cli.md, "Kept manifests")', () => {
  it('a symlink planted at a kept name is never followed: a miss, and the file it names untouched', async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    const outside = mkdtempSync(join(tmpdir(), 'reseal-outside-'));
    try {
      const target = join(outside, 'kept.json');
      writeFileSync(target, fileOf(keyOf(record), record.manifest));
      symlinkSync(target, cache.pathOf(keyOf(record)));
      expect(await cache.get(keyOf(record))).toBeUndefined();
      expect(readFileSync(target, 'utf8')).toBe(fileOf(keyOf(record), record.manifest));
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a FIFO planted at a kept name is a miss at once (never waits for a writer) and is removed', async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    execFileSync('mkfifo', [cache.pathOf(keyOf(record))]);
    expect(await cache.get(keyOf(record))).toBeUndefined();
    expect(exists(cache.pathOf(keyOf(record)))).toBe(false);
    expect(await readThrough(record, cache)).toBe(1);
  }, 5_000);

  it('a file of the format past the size bound is a miss and removed, unread', async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    const huge = { ...record.manifest, padding: 'x'.repeat(MAX_KEPT_MANIFEST_BYTES + 1024) };
    writeFileSync(cache.pathOf(keyOf(record)), fileOf(keyOf(record), huge));
    expect(await cache.get(keyOf(record))).toBeUndefined();
    expect(exists(cache.pathOf(keyOf(record)))).toBe(false);
  });

  it('a file grown after its size was read is a miss and removed: never read past the size stated', async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    const path = cache.pathOf(keyOf(record));
    writeFileSync(path, fileOf(keyOf(record), record.manifest));
    // The file is written in place after `stat` (only a hostile writer does: `set` renames).
    const probe = await open(path, 'r');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const stat = proto.stat;
    vi.spyOn(proto, 'stat').mockImplementation(async function (this: FileHandle) {
      const stats = await stat.call(this);
      return Object.assign(Object.create(Object.getPrototypeOf(stats)), stats, { size: 10 });
    });
    expect(await cache.get(keyOf(record))).toBeUndefined();
    expect(exists(path)).toBe(false);
  });

  it('a kept file swapped for a symlink while it is read: the hit is marked on the file read, never on what the link names', async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    const key = keyOf(record);
    await cache.set(key, record.manifest);
    const outside = mkdtempSync(join(tmpdir(), 'reseal-outside-'));
    try {
      const target = join(outside, 'theirs.txt');
      writeFileSync(target, 'theirs');
      const old = new Date(Date.now() - 60 * 60 * 1000);
      utimesSync(target, old, old);
      const probe = await open(cache.pathOf(key), 'r');
      const proto = Object.getPrototypeOf(probe) as FileHandle;
      await probe.close();
      const read = proto.read;
      vi.spyOn(proto, 'read').mockImplementation(async function (this: FileHandle, ...args: unknown[]) {
        const result = await (read as (...a: unknown[]) => Promise<unknown>).apply(this, args);
        rmSync(cache.pathOf(key));
        symlinkSync(target, cache.pathOf(key));
        return result;
      } as FileHandle['read']);
      expect(await cache.get(key)).toEqual(JSON.parse(canonicalJson(record.manifest)));
      expect(Math.abs(statSync(target).mtimeMs - old.getTime())).toBeLessThan(1000);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a kept manifest with a field the manifest schema refuses (its digest cannot be computed) is forgotten; the item is read', async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    const path = cache.pathOf(keyOf(record));
    writeFileSync(path, fileOf(keyOf(record), { ...record.manifest, extra: true }));
    expect(await readThrough(record, cache)).toBe(1);
    expect(JSON.parse(readFileSync(path, 'utf8')).manifest).toEqual(JSON.parse(canonicalJson(record.manifest)));
  });

  it("another lineage's kept file of the same digest, copied under this lineage's name with its key: the same bytes, used, the record intact", async () => {
    const record = await sealed();
    const cache = new FileManifestCache(dir);
    await cache.set(keyOf(record, OTHER_LINEAGE), record.manifest);
    // As copied: its key is the other lineage's, so it answers nothing here.
    writeFileSync(cache.pathOf(keyOf(record)), readFileSync(cache.pathOf(keyOf(record, OTHER_LINEAGE))));
    expect(await cache.get(keyOf(record))).toBeUndefined();
    // With the key rewritten: a manifest hashing to the digest the record names is the item's content.
    writeFileSync(cache.pathOf(keyOf(record)), fileOf(keyOf(record), record.manifest));
    expect(await readThrough(record, cache)).toBe(0);
  });

  it('a directory other programs use too (RESEAL_MANIFEST_CACHE naming a home or /tmp): their old temporary files and other files survive the bound', async () => {
    const foreign = ['.notes.tmp', '.swap.1234.tmp', 'notes.json', `${'a'.repeat(63)}.json`];
    const old = new Date(Date.now() - 60 * 60 * 1000);
    for (const name of foreign) {
      writeFileSync(join(dir, name), 'theirs');
      utimesSync(join(dir, name), old, old);
    }
    const cache = new FileManifestCache(dir, 1);
    await cache.set('k1', { a: 1 });
    await cache.set('k2', { a: 2 });
    for (const name of foreign) expect(readFileSync(join(dir, name), 'utf8')).toBe('theirs');
    expect(await cache.get('k2')).toEqual({ a: 2 });
  });
});
