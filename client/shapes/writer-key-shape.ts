import { z } from 'zod';

/** `format` of a {@link WriterKeyShape}: bumped only when a field changes meaning or goes away. */
export const WRITER_KEY_FORMAT = 'reseal.writer-key/1';

/**
 * A fresh Ed25519 writer key (docs/authorship.md, "Signed writes"; docs/cli.md, `reseal writer-key
 * new`): the shape `reseal writer-key new --json` prints (camelCase, `format`
 * `reseal.writer-key/1`): the file the private key was written to (as given), its key id, and the
 * base64 of its raw 32-byte public key, the one a lineage's writer policy names.
 */
export const WriterKeyShape = z.object({
  format: z.literal(WRITER_KEY_FORMAT),
  keyFile: z.string(),
  keyId: z.string(),
  publicKey: z.string(),
});
/** Type of {@link WriterKeyShape}. */
export type WriterKeyShape = z.infer<typeof WriterKeyShape>;

/** The {@link WriterKeyShape} of a key written to `keyFile`. */
export function writerKeyShape(
  keyFile: string,
  key: { readonly keyId: string; readonly publicKey: string },
): WriterKeyShape {
  return { format: WRITER_KEY_FORMAT, keyFile, keyId: key.keyId, publicKey: key.publicKey };
}
