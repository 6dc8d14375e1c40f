import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writerKeyIdOfFile } from '../client/writer-key-file';
import { LocalWriterSigner } from '../shared/authorship/local-writer-signer';
import { InvalidInputError } from '../shared/errors';
import type { WriterSigner } from '../shared/ports/writer-signer';
import { BadInputError } from './errors';
import type { CliIo } from './io';
import { sdkConfig } from './sdk-config';

/** The environment variable naming a writer key file when `--writer-key` is not given. */
export const WRITER_KEY_ENV = 'RESEAL_WRITER_KEY';

/** `--writer-key FILE`: a PKCS #8 PEM Ed25519 private key (`reseal writer-key new`). */
export const WRITER_KEY_OPTION = [
  '--writer-key <FILE>',
  `writer key: a PKCS #8 PEM Ed25519 private key (default: $${WRITER_KEY_ENV})`,
] as const;
/** `--writer-kms-key ARN`: a KMS `ECC_NIST_EDWARDS25519` signing key. */
export const WRITER_KMS_KEY_OPTION = [
  '--writer-kms-key <ARN>',
  'writer key: a KMS ECC_NIST_EDWARDS25519 key (kms:Sign, kms:GetPublicKey)',
] as const;

/** Options naming a writer key. */
export interface WriterKeyOptions {
  readonly writerKey?: string;
  readonly writerKmsKey?: string;
}

/**
 * The key id a key file is recorded under: the file's base name without `.pem`, so the same file
 * always gives the same key id (and, with `reseal lineage-id`, the same lineage id).
 */
export function keyIdOfFile(path: string): string {
  return writerKeyIdOfFile(resolve(path));
}

/**
 * A local signer for a PKCS #8 PEM key file (docs/cli.md, "Writer keys").
 * @throws {BadInputError} when the file cannot be read or is not an Ed25519 private key
 */
async function localSignerOf(io: CliIo, path: string): Promise<LocalWriterSigner> {
  const full = resolve(io.cwd, path);
  let pem: string;
  try {
    pem = await readFile(full, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read writer key ${path}: ${(error as Error).message}`);
  }
  try {
    return LocalWriterSigner.fromPem(keyIdOfFile(full), pem);
  } catch (error) {
    if (error instanceof InvalidInputError) {
      throw new BadInputError(`writer key ${path} is not a PKCS #8 PEM Ed25519 private key`);
    }
    throw error;
  }
}

/**
 * The writer signer the options name: `--writer-kms-key`, else `--writer-key`, else the file
 * `$RESEAL_WRITER_KEY`, else none.
 * @throws {BadInputError} for both options at once, or a key that cannot be used
 */
export async function writerSignerFrom(io: CliIo, options: WriterKeyOptions): Promise<WriterSigner | undefined> {
  if (options.writerKey && options.writerKmsKey) {
    throw new BadInputError('give --writer-key or --writer-kms-key, not both');
  }
  if (options.writerKmsKey) {
    // Loaded here so a local key (and every offline command) starts without the AWS SDK (docs/cli.md, "Start-up").
    const [{ KMSClient }, { KmsWriterSigner }] = await Promise.all([
      import('@aws-sdk/client-kms'),
      import('../adapters/kms-writer-signer'),
    ]);
    return KmsWriterSigner.create(new KMSClient(sdkConfig(io.env)), options.writerKmsKey);
  }
  const path = options.writerKey ?? io.env[WRITER_KEY_ENV];
  return path ? localSignerOf(io, path) : undefined;
}
