import { KMSClient } from '@aws-sdk/client-kms';
import { fetchPublicKey } from '../../adapters/fetch-public-key';
import { cosignerKey, formatCosignerKey } from '../../shared/witness/cosigner-key';

/** What the CDK provider framework passes to an `onEvent` handler (the fields used here). */
interface ResourceEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly PhysicalResourceId?: string;
  readonly ResourceProperties: { readonly KeyId?: string; readonly WitnessName?: string };
}

const kms = new KMSClient({});

/**
 * Custom resource `onEvent` (CDK provider framework) of infra/witness-stack.ts: reads the
 * witness key's public key (`kms:GetPublicKey`) and answers its cosigner vkey
 * (`<name>+<key ID>+<base64(0x04 || key)>`, docs/witness.md), which the stack outputs as
 * `WitnessVkey` for the policy. Delete does nothing: the key is the stack's own resource.
 */
export async function handler(event: ResourceEvent): Promise<{ PhysicalResourceId: string; Data?: { Vkey: string } }> {
  const { KeyId, WitnessName } = event.ResourceProperties;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? 'witness-vkey' };
  if (!KeyId || !WitnessName) throw new Error('KeyId and WitnessName are required');
  const vkey = formatCosignerKey(cosignerKey(WitnessName, await fetchPublicKey(kms, KeyId)));
  return { PhysicalResourceId: vkey, Data: { Vkey: vkey } };
}
