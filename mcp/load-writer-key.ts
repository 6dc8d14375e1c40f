import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { LocalWriterSigner } from '../shared/authorship/local-writer-signer';
import { describeError } from '../shared/describe-error';
import { InvalidInputError } from '../shared/errors';
import type { McpServerConfig } from './config';

/**
 * The local writer key of `config` (`RESEAL_WRITER_KEY`, docs/mcp.md, "Configuration"), key id
 * its file's base name without `.pem`; `null` without one. Reaches no AWS, so the server loads it
 * at start-up and a bad key file fails there, naming the variable.
 *
 * @throws {InvalidInputError} at `RESEAL_WRITER_KEY` when the file cannot be read or is not a
 *   PKCS #8 PEM Ed25519 private key
 */
export async function loadWriterKey(config: McpServerConfig): Promise<LocalWriterSigner | null> {
  const file = config.writerKeyFile;
  if (!file) return null;
  const refuse = (message: string, cause: unknown): never => {
    throw new InvalidInputError('MCP server environment', [{ path: 'RESEAL_WRITER_KEY', message }], { cause });
  };
  let pem = '';
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    refuse(`cannot read writer key ${file}: ${describeError(error)}`, error);
  }
  try {
    return LocalWriterSigner.fromPem(basename(file).replace(/\.pem$/i, '') || 'writer', pem);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return refuse(`writer key ${file} is not a PKCS #8 PEM Ed25519 private key (${error.message})`, error);
  }
}
