import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { LocalWriterSigner } from '../shared/authorship/local-writer-signer';

/**
 * The key id a writer key file is recorded under: its base name without `.pem` (`writer` when
 * nothing is left), so one file always gives one key id and, with `soleWriterLineageId`, one
 * lineage id (docs/cli.md, "Writer keys").
 */
export function writerKeyIdOfFile(path: string): string {
  return basename(path).replace(/\.pem$/i, '') || 'writer';
}

/**
 * The writer key kept in the file `path` (a PKCS #8 PEM Ed25519 private key, as
 * `reseal writer-key new` writes): read when the file exists, else made, written there (mode
 * 0600, its directory created) and returned. A key another process wrote there first is read,
 * never overwritten. Key id: {@link writerKeyIdOfFile}. docs/authorship.md, "Writer keys on the
 * client".
 *
 * @example const writer = await writerKeyFile('.reseal/agent-7.pem');
 * @throws {InvalidInputError} when the file holds no PKCS #8 PEM Ed25519 private key
 * @throws the file system's error when the file can be neither read nor written
 */
export async function writerKeyFile(path: string): Promise<LocalWriterSigner> {
  const keyId = writerKeyIdOfFile(path);
  const existing = await readKey(path);
  if (existing !== null) return LocalWriterSigner.fromPem(keyId, existing);
  const { signer, pem } = LocalWriterSigner.generate(keyId);
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(path, pem, { mode: 0o600, flag: 'wx' });
    return signer;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return LocalWriterSigner.fromPem(keyId, await readFile(path, 'utf8'));
  }
}

/** The file's text, or null when there is no such file. */
async function readKey(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
