import { randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import {
  KmsNoticeKey,
  MAX_NOTICE_KEY_BLOB_BYTES,
  NOTICE_DATA_KEY_TTL_MS,
  NOTICE_KEY_CACHE_ENTRIES,
} from '../../../adapters/kms-notice-key';
import { noticeKeyContext } from '../../../shared/ports/notice-key';

const NOTICE_KEY = 'arn:aws:kms:eu-west-1:111122223333:key/notice';
const OTHER_KEY = 'arn:aws:kms:eu-west-1:111122223333:key/other';

/**
 * A fake KMS holding several symmetric keys, as KMS does: a blob names the key that wrapped it and
 * the context it was wrapped under; `Decrypt` answers its plaintext only under the same context,
 * and only for the key named by `KeyId` when one is given (else for whichever key wrapped it).
 * `plaintextBytes` sets the length of the data keys it mints; `fail` the error every call throws.
 */
function fakeKms() {
  const wrapped = new Map<string, { keyId: string; context: string; plaintext: Uint8Array }>();
  const state = { plaintextBytes: 32, fail: null as string | null, decrypts: 0 };
  const send = async (command: unknown) => {
    const input = (command as { input: Record<string, unknown> }).input;
    if (command instanceof DecryptCommand) state.decrypts += 1;
    if (state.fail) throw Object.assign(new Error(state.fail), { name: state.fail });
    const context = JSON.stringify(input.EncryptionContext ?? {});
    if (command instanceof GenerateDataKeyCommand) {
      const plaintext = new Uint8Array(randomBytes(state.plaintextBytes));
      const blob = new Uint8Array(randomBytes(184));
      wrapped.set(Buffer.from(blob).toString('base64'), { keyId: input.KeyId as string, context, plaintext });
      return { Plaintext: plaintext, CiphertextBlob: blob, KeyId: input.KeyId };
    }
    if (command instanceof DecryptCommand) {
      const found = wrapped.get(Buffer.from(input.CiphertextBlob as Uint8Array).toString('base64'));
      if (found && input.KeyId !== undefined && input.KeyId !== found.keyId) {
        throw Object.assign(new Error('another key'), { name: 'IncorrectKeyException' });
      }
      if (!found || found.context !== context) {
        throw Object.assign(new Error('bad blob'), { name: 'InvalidCiphertextException' });
      }
      return { Plaintext: found.plaintext, KeyId: found.keyId };
    }
    throw new Error('unexpected command');
  };
  return { client: { send } as never, state };
}

describe('the notice key against blobs that are no data key of it under its context', () => {
  it('a data key of another KMS key of the account (one its owner may Encrypt with), under the notice context: null', async () => {
    const kms = fakeKms();
    const other = new KmsNoticeKey(kms.client, OTHER_KEY, 'reseal/test');
    const integrator = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    const { blob } = await other.dataKey();
    expect(await integrator.open(blob)).toBeNull();
  });

  it('a data key of the notice key under another log or another purpose: null', async () => {
    const kms = fakeKms();
    const integrator = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    const { blob } = await new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/other').dataKey();
    expect(await integrator.open(blob)).toBeNull();
    const client = kms.client as { send: (c: unknown) => Promise<{ CiphertextBlob: Uint8Array }> };
    const foreign = await client.send(
      new GenerateDataKeyCommand({
        KeyId: NOTICE_KEY,
        KeySpec: 'AES_256',
        EncryptionContext: { ...noticeKeyContext('reseal/test'), purpose: 'another-use' },
      }),
    );
    expect(await integrator.open(Buffer.from(foreign.CiphertextBlob).toString('base64'))).toBeNull();
  });

  it('a blob that unwraps to a key of another length: null, and the sealer refuses to MAC with one', async () => {
    const kms = fakeKms();
    kms.state.plaintextBytes = 16;
    const sealer = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    await expect(sealer.dataKey()).rejects.toThrow(/32-byte/);
    const client = kms.client as { send: (c: unknown) => Promise<{ CiphertextBlob: Uint8Array }> };
    const short = await client.send(
      new GenerateDataKeyCommand({
        KeyId: NOTICE_KEY,
        NumberOfBytes: 16,
        EncryptionContext: noticeKeyContext('reseal/test'),
      }),
    );
    const integrator = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    expect(await integrator.open(Buffer.from(short.CiphertextBlob).toString('base64'))).toBeNull();
  });

  it('the key disabled or access denied: the open rejects (not a verdict), is not kept, and is asked again', async () => {
    const kms = fakeKms();
    const sealer = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    const integrator = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    const { blob, plaintext } = await sealer.dataKey();
    for (const name of ['DisabledException', 'KMSInvalidStateException', 'AccessDeniedException']) {
      kms.state.fail = name;
      await expect(integrator.open(blob)).rejects.toThrow(name);
    }
    kms.state.fail = null;
    expect(await integrator.open(blob)).toEqual(plaintext);
    expect(kms.state.decrypts).toBe(4);
  });

  it('a data key past its lifetime is never handed out again, even while KMS refuses a new one (the notices then go without auth)', async () => {
    const kms = fakeKms();
    let now = 0;
    const sealer = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test', () => now);
    await sealer.dataKey();
    now += NOTICE_DATA_KEY_TTL_MS;
    kms.state.fail = 'KMSInvalidStateException';
    await expect(sealer.dataKey()).rejects.toThrow('KMSInvalidStateException');
    now -= 1; // the clock stepping back does not bring the old key back either
    await expect(sealer.dataKey()).rejects.toThrow('KMSInvalidStateException');
  });

  it("the sealer opens the data keys it generated itself with no Decrypt (its own heads), and another container's with one, kept", async () => {
    const kms = fakeKms();
    let now = 0;
    const sealer = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test', () => now);
    const first = await sealer.dataKey();
    now += NOTICE_DATA_KEY_TTL_MS;
    const second = await sealer.dataKey();
    expect(second.blob).not.toBe(first.blob);
    expect(await sealer.open(first.blob)).toEqual(first.plaintext);
    expect(await sealer.open(second.blob)).toEqual(second.plaintext);
    expect(kms.state.decrypts).toBe(0);
    const other = await new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test').dataKey();
    expect(await sealer.open(other.blob)).toEqual(other.plaintext);
    expect(await sealer.open(other.blob)).toEqual(other.plaintext);
    expect(kms.state.decrypts).toBe(1);
  });

  it('forged blobs by the hundred evict only each other: the keys that open (and its own) stay, with no Decrypt again', async () => {
    const kms = fakeKms();
    const integrator = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    const own = await integrator.dataKey();
    const genuine = await new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test').dataKey();
    expect(await integrator.open(genuine.blob)).toEqual(genuine.plaintext);
    for (let i = 0; i < 3 * NOTICE_KEY_CACHE_ENTRIES; i += 1) {
      expect(await integrator.open(randomBytes(184).toString('base64'))).toBeNull();
    }
    const before = kms.state.decrypts;
    expect(await integrator.open(genuine.blob)).toEqual(genuine.plaintext);
    expect(await integrator.open(own.blob)).toEqual(own.plaintext);
    expect(kms.state.decrypts).toBe(before);
  });

  it('a genuine key in use stays while other genuine keys pass through (least recently used dropped first)', async () => {
    const kms = fakeKms();
    const integrator = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    const hot = await new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test').dataKey();
    await integrator.open(hot.blob);
    for (let i = 0; i < 2 * NOTICE_KEY_CACHE_ENTRIES; i += 1) {
      await integrator.open((await new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test').dataKey()).blob);
      expect(await integrator.open(hot.blob)).toEqual(hot.plaintext);
    }
    expect(kms.state.decrypts).toBe(1 + 2 * NOTICE_KEY_CACHE_ENTRIES);
  });

  it(`a blob longer than KMS takes (${MAX_NOTICE_KEY_BLOB_BYTES} bytes; a head item holds 400 KB) or empty is refused with no Decrypt`, async () => {
    const kms = fakeKms();
    const integrator = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    expect(await integrator.open(randomBytes(MAX_NOTICE_KEY_BLOB_BYTES + 1).toString('base64'))).toBeNull();
    expect(await integrator.open(randomBytes(300_000).toString('base64'))).toBeNull();
    expect(await integrator.open('')).toBeNull();
    expect(kms.state.decrypts).toBe(0);
  });

  it('readers opening one blob at once share one Decrypt', async () => {
    const kms = fakeKms();
    const integrator = new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test');
    const genuine = await new KmsNoticeKey(kms.client, NOTICE_KEY, 'reseal/test').dataKey();
    const forged = randomBytes(184).toString('base64');
    const opened = await Promise.all([genuine.blob, genuine.blob, forged, forged].map((b) => integrator.open(b)));
    expect(opened).toEqual([genuine.plaintext, genuine.plaintext, null, null]);
    expect(kms.state.decrypts).toBe(2);
  });
});
