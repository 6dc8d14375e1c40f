import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writerKeyFile, writerKeyIdOfFile } from '../../../client/writer-key-file';
import { InvalidInputError } from '../../../shared/errors';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-writer-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writerKeyFile (docs/cli.md, the agent client: writer keys)', () => {
  it('makes a key on first use (mode 0600, directory created), then reads the same key back', async () => {
    const path = join(dir, '.reseal', 'agent-7.pem');
    const made = await writerKeyFile(path);
    expect(made.keyId).toBe('agent-7');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const again = await writerKeyFile(path);
    expect(again.publicKey).toBe(made.publicKey);
    expect(again.keyId).toBe('agent-7');
  });

  it('refuses a file that holds no PEM private key, and never overwrites it', async () => {
    const path = join(dir, 'broken.pem');
    await writeFile(path, 'not a key\n');
    await expect(writerKeyFile(path)).rejects.toBeInstanceOf(InvalidInputError);
    expect(await readFile(path, 'utf8')).toBe('not a key\n');
  });

  it('names a key by its file: base name without .pem', () => {
    expect(writerKeyIdOfFile('/keys/agent-7.PEM')).toBe('agent-7');
    expect(writerKeyIdOfFile('keys/ops')).toBe('ops');
    expect(writerKeyIdOfFile('/keys/.pem')).toBe('writer');
  });
});
