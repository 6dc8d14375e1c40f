import { randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { KmsNoticeKey, NOTICE_DATA_KEY_TTL_MS, NOTICE_KEY_CACHE_ENTRIES } from '../../../adapters/kms-notice-key';
import { NOTICE_KEY_PURPOSE } from '../../../shared/ports/notice-key';

const KEY_ID = 'arn:aws:kms:eu-west-1:111122223333:key/notice';
const CONTEXT = { purpose: NOTICE_KEY_PURPOSE, log: 'reseal/test' };

/** A fake KMS: data keys "wrapped" as a random blob it remembers; `fail` names the error the next calls throw. */
function fakeKms() {
  const wrapped = new Map<string, Uint8Array>();
  const calls: { name: string; input: Record<string, unknown> }[] = [];
  let fail: string | null = null;
  const send = async (command: unknown) => {
    const { input } = command as { input: Record<string, unknown> };
    calls.push({ name: (command as object).constructor.name, input });
    if (fail) throw Object.assign(new Error(fail), { name: fail });
    if (command instanceof GenerateDataKeyCommand) {
      const plaintext = new Uint8Array(randomBytes(32));
      const blob = new Uint8Array(randomBytes(184));
      wrapped.set(Buffer.from(blob).toString('base64'), plaintext);
      return { Plaintext: plaintext, CiphertextBlob: blob, KeyId: KEY_ID };
    }
    if (command instanceof DecryptCommand) {
      const plaintext = wrapped.get(Buffer.from(input.CiphertextBlob as Uint8Array).toString('base64'));
      if (!plaintext) throw Object.assign(new Error('bad blob'), { name: 'InvalidCiphertextException' });
      return { Plaintext: plaintext, KeyId: KEY_ID };
    }
    throw new Error('unexpected command');
  };
  return {
    client: { send } as never,
    calls,
    setFail: (name: string | null) => {
      fail = name;
    },
  };
}

describe('KmsNoticeKey (docs/deployment-log.md, "Sealed-run notices")', () => {
  it('one GenerateDataKey (AES_256, the context) per quarter hour, however many notices', async () => {
    const kms = fakeKms();
    let now = 0;
    const key = new KmsNoticeKey(kms.client, KEY_ID, 'reseal/test', () => now);
    const first = await key.dataKey();
    expect(await key.dataKey()).toBe(first);
    now += NOTICE_DATA_KEY_TTL_MS - 1;
    expect(await key.dataKey()).toBe(first);
    expect(kms.calls).toEqual([
      { name: 'GenerateDataKeyCommand', input: { KeyId: KEY_ID, KeySpec: 'AES_256', EncryptionContext: CONTEXT } },
    ]);
    now += 1;
    expect(await key.dataKey()).not.toBe(first);
    expect(kms.calls).toHaveLength(2);
  });

  it('a failure rejects and is not remembered', async () => {
    const kms = fakeKms();
    const key = new KmsNoticeKey(kms.client, KEY_ID, 'reseal/test', () => 0);
    kms.setFail('ThrottlingException');
    await expect(key.dataKey()).rejects.toThrow('ThrottlingException');
    kms.setFail(null);
    expect((await key.dataKey()).plaintext).toHaveLength(32);
  });

  it('opens its own data keys with the context, once per blob; a blob KMS refuses is null, an outage rejects', async () => {
    const kms = fakeKms();
    const sealer = new KmsNoticeKey(kms.client, KEY_ID, 'reseal/test');
    const integrator = new KmsNoticeKey(kms.client, KEY_ID, 'reseal/test');
    const { plaintext, blob } = await sealer.dataKey();
    expect(await integrator.open(blob)).toEqual(plaintext);
    expect(await integrator.open(blob)).toEqual(plaintext);
    const decrypts = kms.calls.filter((c) => c.name === 'DecryptCommand');
    expect(decrypts).toHaveLength(1);
    expect(decrypts[0]?.input.EncryptionContext).toEqual(CONTEXT);
    expect(await integrator.open(randomBytes(184).toString('base64'))).toBeNull();
    kms.setFail('KMSInternalException');
    const other = randomBytes(184).toString('base64');
    await expect(integrator.open(other)).rejects.toThrow('KMSInternalException');
    kms.setFail(null);
    expect(await integrator.open(other)).toBeNull(); // asked again: the outage was not remembered
  });

  it(`keeps at most ${NOTICE_KEY_CACHE_ENTRIES} blobs, the oldest dropped first`, async () => {
    const kms = fakeKms();
    const key = new KmsNoticeKey(kms.client, KEY_ID, 'reseal/test');
    const blobs = Array.from({ length: NOTICE_KEY_CACHE_ENTRIES + 1 }, () => randomBytes(184).toString('base64'));
    for (const blob of blobs) await key.open(blob);
    await key.open(blobs[NOTICE_KEY_CACHE_ENTRIES] as string);
    await key.open(blobs[0] as string);
    expect(kms.calls.filter((c) => c.name === 'DecryptCommand')).toHaveLength(NOTICE_KEY_CACHE_ENTRIES + 2);
  });
});
