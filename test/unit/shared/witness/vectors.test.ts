import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseCheckpointBody } from '../../../../shared/log/checkpoint';
import { formatSignatureLine } from '../../../../shared/log/signature-line';
import { parseSignedNote } from '../../../../shared/log/signed-note';
import { parseAddCheckpointRequest } from '../../../../shared/witness/add-checkpoint-request';
import { admitCheckpoint } from '../../../../shared/witness/admit-checkpoint';
import { attachCosignatures } from '../../../../shared/witness/attach-cosignatures';
import { cosign } from '../../../../shared/witness/cosign';
import { cosignatureMessage, verifyCosignature } from '../../../../shared/witness/cosignature';
import { formatCosignerKey, parseCosignerKey } from '../../../../shared/witness/cosigner-key';
import { decideAddCheckpoint } from '../../../../shared/witness/decide-add-checkpoint';
import { checkPolicy } from '../../../../shared/witness/policy-check';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import { parseTrustedLogs } from '../../../../shared/witness/trusted-logs';
import { fromHex, testTree, toHex } from '../../../helpers/log-factories';
import { testWitnessSigner } from '../../../helpers/witness-factories';
import vectors from '../../../vectors/witness.json';

/** An Ed25519 private key from a 32-byte seed, with node:crypto only (RFC 8410 PKCS #8 prefix). */
function privateKeyOf(seedHex: string) {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]);
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
}

describe('witness vectors, recomputed with plain node:crypto (what another language does)', () => {
  const { witness, cosignature } = vectors;
  const privateKey = privateKeyOf(witness.seedHex);
  const publicKey = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x as string, 'base64url');

  it('the public key, the cosigner key ID (type 0x04) and the vkey', () => {
    expect(publicKey.toString('hex')).toBe(witness.publicKeyHex);
    const keyId = createHash('sha256')
      .update(Buffer.concat([Buffer.from(`${witness.name}\n`, 'utf8'), Buffer.from([0x04]), publicKey]))
      .digest()
      .subarray(0, 4);
    expect(keyId.toString('hex')).toBe(witness.keyIdHex);
    expect(witness.vkey).toBe(
      `${witness.name}+${witness.keyIdHex}+${Buffer.concat([Buffer.from([0x04]), publicKey]).toString('base64')}`,
    );
  });

  it('the signed message, the timestamped signature and the signature line', () => {
    expect(cosignature.signedMessage).toBe(
      `cosignature/v1\ntime ${cosignature.timestamp}\n${cosignature.checkpointBody}`,
    );
    const stamp = Buffer.alloc(8);
    stamp.writeBigUInt64BE(BigInt(cosignature.timestamp));
    const signature = sign(null, Buffer.from(cosignature.signedMessage, 'utf8'), privateKey);
    expect(Buffer.concat([stamp, signature]).toString('hex')).toBe(cosignature.signatureHex);
    const blob = Buffer.concat([Buffer.from(witness.keyIdHex, 'hex'), stamp, signature]);
    expect(cosignature.line).toBe(`\u2014 ${witness.name} ${blob.toString('base64')}\n`);
  });

  it('the add-checkpoint request is old size, proof lines, a blank line and the signed checkpoint', () => {
    const { addCheckpoint } = vectors;
    const [head, note] = [
      addCheckpoint.request.slice(0, addCheckpoint.request.indexOf('\n\n') + 1),
      addCheckpoint.request.slice(addCheckpoint.request.indexOf('\n\n') + 2),
    ];
    expect(head).toBe(`old ${addCheckpoint.oldSize}\n${addCheckpoint.proofBase64.map((p) => `${p}\n`).join('')}`);
    expect(note.startsWith(cosignature.checkpointBody)).toBe(true);
  });
});

describe('witness vectors, reproduced by the code', () => {
  const { witness, cosignature, addCheckpoint } = vectors;

  it('cosigner key, message, cosignature and line', async () => {
    const key = parseCosignerKey(witness.vkey);
    expect(toHex(key.publicKey)).toBe(witness.publicKeyHex);
    expect(formatCosignerKey(key)).toBe(witness.vkey);
    expect(new TextDecoder().decode(cosignatureMessage(cosignature.checkpointBody, cosignature.timestamp))).toBe(
      cosignature.signedMessage,
    );
    const sig = await cosign(cosignature.checkpointBody, cosignature.timestamp, testWitnessSigner());
    expect(toHex(sig.signature)).toBe(cosignature.signatureHex);
    expect(formatSignatureLine(sig)).toBe(cosignature.line);
    const [line] = parseSignedNote(`x\n\n${cosignature.line}`).signatures;
    expect(verifyCosignature(cosignature.checkpointBody, line as never, key)).toBe(cosignature.timestamp);
  });

  it('the request is admitted and cosigned from a witness state at the old size; the policy accepts the result', () => {
    const request = parseAddCheckpointRequest(addCheckpoint.request);
    expect(request.proof.map(toHex)).toEqual(addCheckpoint.proofBase64.map((p) => toHex(Buffer.from(p, 'base64'))));
    const admitted = admitCheckpoint(request, parseTrustedLogs(vectors.log.vkey));
    if (admitted.kind !== 'ADMITTED') throw new Error(admitted.reason);
    const old = { origin: vectors.log.keyName, size: addCheckpoint.oldSize, rootHash: testTree(7).root(4) };
    const decision = decideAddCheckpoint(old, admitted);
    expect(decision.kind).toBe('COSIGN');
    const note = attachCosignatures(request.note, addCheckpoint.response);
    const verdict = checkPolicy({
      note,
      policy: parsePolicy(vectors.policy),
      maxAgeSeconds: 600,
      nowSeconds: cosignature.timestamp + 600,
    });
    expect(verdict).toMatchObject({ kind: 'ACCEPTED', quorumTime: cosignature.timestamp });
    expect(parseCheckpointBody(cosignature.checkpointBody).rootHash).toEqual(fromHex(toHex(testTree(7).root(7))));
  });
});
