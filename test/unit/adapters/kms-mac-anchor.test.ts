import {
  DisabledException,
  GenerateMacCommand,
  KMSInvalidMacException,
  NotFoundException,
  VerifyMacCommand,
} from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { KMSMacAnchor, type KMSSend } from '../../../adapters/kms-mac-anchor';
import { AnchorKeyMismatchError, AnchorUnavailableError } from '../../../shared/errors';
import { sealRecord } from '../../../shared/seal/seal-record';
import { verifyChain } from '../../../shared/seal/verify-chain';
import { sealInput, TEST_LINEAGE_ID, TEST_NOW_MS } from '../../helpers/seal-factories';

const KEY = 'arn:aws:kms:eu-west-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const MAC = new Uint8Array(32).fill(7);
const MAC_B64 = Buffer.from(MAC).toString('base64');
const message = new TextEncoder().encode('{"header":1}');

/** A fake KMS client: records each command and answers with `respond`. */
function fakeKms(respond: (command: unknown) => unknown) {
  const commands: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      commands.push(command);
      return respond(command);
    },
  } as unknown as KMSSend;
  return { client, commands };
}

const kmsError = <T>(Type: new (o: { message: string; $metadata: object }) => T) =>
  new Type({ message: 'from KMS', $metadata: {} });

describe('KMSMacAnchor (docs/sealing.md "Record layout" (anchor) on KMS HMAC_256)', () => {
  it('GenerateMac with HMAC_SHA_256 under its key; the MAC is the standard base64 of the raw bytes', async () => {
    const { client, commands } = fakeKms(() => ({ Mac: MAC, KeyId: KEY, MacAlgorithm: 'HMAC_SHA_256' }));
    const signature = await new KMSMacAnchor(client, KEY).generateMac(message);
    expect(signature).toEqual({ keyId: KEY, algorithm: 'HMAC_SHA_256', mac: MAC_B64 });
    expect(commands[0]).toBeInstanceOf(GenerateMacCommand);
    expect((commands[0] as GenerateMacCommand).input).toEqual({
      KeyId: KEY,
      MacAlgorithm: 'HMAC_SHA_256',
      Message: message,
    });
  });

  it('VerifyMac sends the decoded MAC bytes and resolves MacValid', async () => {
    const { client, commands } = fakeKms(() => ({ MacValid: true }));
    const ok = await new KMSMacAnchor(client, KEY).verifyMac(message, {
      keyId: KEY,
      algorithm: 'HMAC_SHA_256',
      mac: MAC_B64,
    });
    expect(ok).toBe(true);
    expect(commands[0]).toBeInstanceOf(VerifyMacCommand);
    expect(Buffer.from((commands[0] as VerifyMacCommand).input.Mac as Uint8Array)).toEqual(Buffer.from(MAC));
  });

  it('docs/sealing.md verification step 15 (hash-with-payload forgery): KMSInvalidMacException → false (a wrong MAC, not an outage)', async () => {
    const { client } = fakeKms(() => {
      throw kmsError(KMSInvalidMacException);
    });
    const ok = await new KMSMacAnchor(client, KEY).verifyMac(message, {
      keyId: KEY,
      algorithm: 'HMAC_SHA_256',
      mac: MAC_B64,
    });
    expect(ok).toBe(false);
  });

  it.each([
    ['DisabledException', () => kmsError(DisabledException)],
    ['NotFoundException', () => kmsError(NotFoundException)],
    ['network', () => Object.assign(new Error('connect ECONNREFUSED'), { name: 'Error' })],
  ])(
    'docs/sealing.md verification step 15′ (fail closed): %s makes verifyMac reject with AnchorUnavailableError (cause kept)',
    async (_, make) => {
      const error = make();
      const { client } = fakeKms(() => {
        throw error;
      });
      const anchor = new KMSMacAnchor(client, KEY);
      const verifying = anchor.verifyMac(message, { keyId: KEY, algorithm: 'HMAC_SHA_256', mac: MAC_B64 });
      await expect(verifying).rejects.toBeInstanceOf(AnchorUnavailableError);
      await expect(verifying).rejects.toMatchObject({ cause: error });
      await expect(anchor.generateMac(message)).rejects.toBeInstanceOf(AnchorUnavailableError);
    },
  );

  it('a signature naming another key rejects (AnchorKeyMismatchError) without calling KMS; malformed MAC → false', async () => {
    const { client, commands } = fakeKms(() => ({ MacValid: true }));
    const anchor = new KMSMacAnchor(client, KEY);
    await expect(
      anchor.verifyMac(message, { keyId: 'attacker-key', algorithm: 'HMAC_SHA_256', mac: MAC_B64 }),
    ).rejects.toBeInstanceOf(AnchorKeyMismatchError);
    expect(await anchor.verifyMac(message, { keyId: KEY, algorithm: 'HMAC_SHA_256', mac: 'not base64!' })).toBe(false);
    expect(commands).toHaveLength(0);
  });

  it('docs/sealing.md verification step 15′ (fail closed): a chain whose key is disabled in KMS verifies as UNVERIFIED_TAMPER_RISK', async () => {
    let disabled = false;
    const { client } = fakeKms((command) => {
      if (disabled) throw kmsError(DisabledException);
      if (command instanceof GenerateMacCommand) return { Mac: MAC };
      return { MacValid: true };
    });
    const anchor = new KMSMacAnchor(client, KEY);
    const record = await sealRecord(sealInput(0), null, anchor, TEST_NOW_MS);
    expect((await verifyChain([record], { lineageId: TEST_LINEAGE_ID, anchor })).verdict).toBe('VERIFIED_INTACT');
    disabled = true;
    expect((await verifyChain([record], { lineageId: TEST_LINEAGE_ID, anchor })).verdict).toBe(
      'UNVERIFIED_TAMPER_RISK',
    );
  });
});
