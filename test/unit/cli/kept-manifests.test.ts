import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchGetItemCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LineageKeys, MANIFEST_KEY_PREFIX } from '../../../adapters/lineage-keys';
import { manifestItem } from '../../../adapters/manifest-item';
import { connectStack } from '../../../cli/connect-stack';
import type { CliIo } from '../../../cli/io';
import { manifestCacheDir } from '../../../cli/manifest-cache-dir';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { sealRecord } from '../../../shared/seal/seal-record';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { sealInput, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reseal-cli-manifests-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const ioOf = (env: Record<string, string> = {}): CliIo => ({
  stdout: () => undefined,
  stderr: () => undefined,
  env: { AWS_REGION: 'us-east-1', ...env },
  nowMs: () => TEST_NOW_MS,
  cwd: dir,
  stderrIsTty: false,
});

describe('manifestCacheDir: where a CLI run keeps the manifests it proved', () => {
  it('is .reseal/manifests under the working directory, $RESEAL_MANIFEST_CACHE when set (relative to it), none when "none"', () => {
    expect(manifestCacheDir(ioOf())).toBe(join(dir, '.reseal', 'manifests'));
    expect(manifestCacheDir(ioOf({ RESEAL_MANIFEST_CACHE: 'kept' }))).toBe(join(dir, 'kept'));
    expect(manifestCacheDir(ioOf({ RESEAL_MANIFEST_CACHE: '/var/kept' }))).toBe('/var/kept');
    expect(manifestCacheDir(ioOf({ RESEAL_MANIFEST_CACHE: 'none' }))).toBeNull();
  });
});

describe('the CLI keeps verified manifests on disk: a new process reads no manifest item an earlier one proved', () => {
  /** Two CLI runs (two clients from `connectStack`, as two processes make them) each reading record 0; the manifest reads they sent. */
  async function twoRuns(env: Record<string, string>): Promise<number> {
    const record = await sealRecord(sealInput(0), null, testAnchor(), TEST_NOW_MS);
    const { manifest: _m, ...rest } = record;
    const manifestReads: BatchGetItemCommand[] = [];
    vi.spyOn(DynamoDBClient.prototype, 'send').mockImplementation((async (command: unknown) => {
      if (command instanceof BatchGetItemCommand) {
        const keys = Object.values(command.input.RequestItems ?? {}).flatMap((request) => request.Keys ?? []);
        if (keys.some((key) => key.pk?.S?.startsWith(MANIFEST_KEY_PREFIX))) {
          manifestReads.push(command);
          return { Responses: { [TEST_CLIENT_OUTPUTS.tableName]: [manifestItem(record)] } };
        }
        return { Responses: {} };
      }
      if (
        command instanceof GetItemCommand &&
        command.input.Key?.pk?.S === LineageKeys.lineage(TEST_LINEAGE_ID) &&
        command.input.Key?.sk?.S === LineageKeys.record(0)
      )
        return { Item: { pk: command.input.Key.pk, sk: command.input.Key.sk, record: { S: canonicalJson(rest) } } };
      return {};
    }) as never);
    const pin = { stackName: 'ResealStack', outputs: { ...TEST_CLIENT_OUTPUTS }, ...TEST_CLIENT_KEYS };
    for (let run = 0; run < 2; run++) {
      const client = await connectStack(ioOf(env), 'ResealStack', null, pin);
      // A receipt starts with the record (its manifest put back); the empty deployment log then stops it.
      await client.chainReceipt(TEST_LINEAGE_ID, 0).catch(() => undefined);
    }
    return manifestReads.length;
  }

  it('two runs in one working directory read the manifest item once in total, kept under .reseal/manifests', async () => {
    expect(await twoRuns({})).toBe(1);
    expect(readdirSync(join(dir, '.reseal', 'manifests'))).toHaveLength(1);
  });

  it('$RESEAL_MANIFEST_CACHE names the directory; "none" keeps none (each run reads the item)', async () => {
    mkdirSync(join(dir, 'elsewhere'));
    expect(await twoRuns({ RESEAL_MANIFEST_CACHE: 'elsewhere/manifests' })).toBe(1);
    expect(readdirSync(join(dir, 'elsewhere', 'manifests'))).toHaveLength(1);
    vi.restoreAllMocks();
    rmSync(join(dir, 'elsewhere'), { recursive: true });
    expect(await twoRuns({ RESEAL_MANIFEST_CACHE: 'none' })).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });
});
