import { GetPublicKeyCommand, type GetPublicKeyCommandOutput, type KMSClient } from '@aws-sdk/client-kms';
import { SignerUnavailableError } from '../shared/errors';
import { publicKeyFromSpki } from '../shared/log/public-key-from-spki';

/** The part of `KMSClient` the Ed25519 key adapters use (a fake with `send` serves unit tests). */
export type KMSSend = Pick<KMSClient, 'send'>;

/** KMS name of the Ed25519 key spec (the log and guard keys). */
export const ED25519_KEY_SPEC = 'ECC_NIST_EDWARDS25519';
/** KMS name of pure Ed25519 (RFC 8032), what C2SP signed notes use; not `ED25519_PH_SHA_512`. */
export const ED25519_SIGNING_ALGORITHM = 'ED25519_SHA_512';

/**
 * Reads an Ed25519 public key from KMS (`GetPublicKey`) as raw 32 bytes, after checking that the
 * key is an `ECC_NIST_EDWARDS25519` `SIGN_VERIFY` key offering `ED25519_SHA_512`.
 *
 * @throws {SignerUnavailableError} when KMS refuses or the key is of another kind
 */
export async function fetchPublicKey(client: KMSSend, keyId: string): Promise<Uint8Array> {
  let out: GetPublicKeyCommandOutput;
  try {
    out = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  } catch (error) {
    throw new SignerUnavailableError(keyId, describeKmsError(error), { cause: error });
  }
  if (out.KeySpec !== ED25519_KEY_SPEC || out.KeyUsage !== 'SIGN_VERIFY') {
    throw new SignerUnavailableError(
      keyId,
      `key is ${out.KeySpec}/${out.KeyUsage}, not ${ED25519_KEY_SPEC}/SIGN_VERIFY`,
    );
  }
  if (!out.SigningAlgorithms?.includes(ED25519_SIGNING_ALGORITHM)) {
    throw new SignerUnavailableError(keyId, `key does not offer ${ED25519_SIGNING_ALGORITHM}`);
  }
  if (!out.PublicKey) throw new SignerUnavailableError(keyId, 'GetPublicKey returned no key');
  return publicKeyFromSpki(out.PublicKey);
}

/** A KMS failure as `name: message`, for the reason of a {@link SignerUnavailableError}. */
export function describeKmsError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
