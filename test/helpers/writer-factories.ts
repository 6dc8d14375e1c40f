/**
 * Writer keys for tests (docs/authorship.md): a fixed test writer key (seed 0x80…0x9f), a
 * recovery key (0xc0…0xdf) and a stranger's key (0xe0…0xff), the test lineage write policy they
 * make, self-certifying lineage ids under it, and a synchronous signer for the factories.
 */
import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { type LineagePolicy, lineageIdFor } from '../../shared/authorship/lineage-policy';
import { LocalWriterSigner } from '../../shared/authorship/local-writer-signer';
import { requestSigningDigest } from '../../shared/authorship/request-signing-digest';
import type { ResidualWriteRequest, UnsignedWriteRequest } from '../../shared/write/write-request';

/** The private key of a 32-byte seed `first, first + 1, …` (PKCS #8, RFC 8410). */
const keyOf = (first: number): KeyObject =>
  createPrivateKey({
    key: Buffer.concat([
      Buffer.from('302e020100300506032b657004220420', 'hex'),
      Buffer.from(Uint8Array.from({ length: 32 }, (_, i) => first + i)),
    ]),
    format: 'der',
    type: 'pkcs8',
  });
const keys = new Map<string, KeyObject>();
const signerOf = (keyId: string, first: number): LocalWriterSigner => {
  const key = keyOf(first);
  const signer = new LocalWriterSigner(keyId, key);
  keys.set(signer.publicKey, key);
  return signer;
};

/** Key id of the test writer key. */
export const TEST_WRITER_KEY_ID = 'test-writer-1';
/** The test writer key (seed 0x80…0x9f): every factory write is signed with it. */
export const TEST_WRITER = signerOf(TEST_WRITER_KEY_ID, 0x80);
/** The test recovery key (seed 0xc0…0xdf), declared by {@link TEST_POLICY}. */
export const TEST_RECOVERY = signerOf('test-recovery-1', 0xc0);
/** A key no test policy names (seed 0xe0…0xff): the second principal of the authorship tests. */
export const STRANGER_WRITER = signerOf('stranger-1', 0xe0);

/** The test lineage write policy: the test writer, recoverable by the test recovery key. */
export const TEST_POLICY: LineagePolicy = {
  v: 1,
  writers: [{ keyId: TEST_WRITER.keyId, publicKey: TEST_WRITER.publicKey }],
  recoveryKeys: [TEST_RECOVERY.publicKey],
};

/** The self-certifying id of a test lineage: `<label>.<policy digest prefix>` under {@link TEST_POLICY}. */
export function testLineageId(label: string, policy: LineagePolicy = TEST_POLICY): string {
  return lineageIdFor(label, policy);
}

/** A test signer for a further seed (`first, first + 1, …`), usable with {@link signWriteSync}. */
export function testWriter(keyId: string, first: number): LocalWriterSigner {
  return signerOf(keyId, first);
}

/**
 * Signs `request` synchronously with one of this file's signers (node:crypto), as
 * `signWriteRequest` does; any writer block it had is replaced.
 */
export function signWriteSync(
  request: UnsignedWriteRequest | ResidualWriteRequest,
  signer: LocalWriterSigner = TEST_WRITER,
  signedAtMs: number = Date.now(),
): ResidualWriteRequest {
  const { writer: _old, ...unsigned } = request as ResidualWriteRequest;
  const block = { keyId: signer.keyId, publicKey: signer.publicKey, signedAtMs };
  const digest = requestSigningDigest(unsigned, block);
  const key = keys.get(signer.publicKey);
  if (!key) throw new Error(`signWriteSync: ${signer.keyId} is not a signer of test/helpers/writer-factories.ts`);
  const signature = sign(null, digest, key).toString('base64');
  return { ...unsigned, writer: { ...block, signature } };
}
