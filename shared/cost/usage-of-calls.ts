import type { PerUseDimension } from './price-table';
import type { Usage } from './usage';

/** What an AWS operation was counted at (bench/stack/call-tally.ts's figures, summed over a run). */
export interface CountedCall {
  readonly calls: number;
  /** Billing units of the request: 64 KiB chunks, and one per entry of a batch. */
  readonly billedUnits: number;
  readonly readUnits: number;
  readonly writeUnits: number;
}

/**
 * The billable usage of counted AWS calls, keyed `Service.Operation` (`SQS-FIFO` for calls on a
 * FIFO queue): KMS `GenerateMac` / `VerifyMac` (and other calls on the symmetric key) at the
 * symmetric rate, `Sign` / `Verify` / `GetPublicKey` at the asymmetric one (the stack's Ed25519
 * keys), SQS requests and EventBridge events by their billed units, DynamoDB by the capacity the
 * service reported. Calls with no per-request price (CloudFormation) are listed in `unpriced`.
 */
export function usageOfCalls(counts: Readonly<Record<string, CountedCall>>): { usage: Usage; unpriced: string[] } {
  const usage: Partial<Record<PerUseDimension, number>> = {};
  const add = (dimension: PerUseDimension, units: number) => {
    usage[dimension] = (usage[dimension] ?? 0) + units;
  };
  const unpriced: string[] = [];
  for (const [name, counted] of Object.entries(counts)) {
    const [service, operation] = name.split('.', 2);
    if (service === 'KMS') {
      const asymmetric = operation === 'Sign' || operation === 'Verify' || operation === 'GetPublicKey';
      add(asymmetric ? 'kmsAsymmetricRequest' : 'kmsSymmetricRequest', counted.calls);
    } else if (service === 'SQS') {
      add('sqsStandardRequest', counted.billedUnits);
    } else if (service === 'SQS-FIFO') {
      add('sqsFifoRequest', counted.billedUnits);
    } else if (service === 'EventBridge' && operation === 'PutEvents') {
      add('eventBridgeCustomEvent', counted.billedUnits);
    } else if (service === 'DynamoDB') {
      add('dynamodbReadRequestUnit', counted.readUnits);
      add('dynamodbWriteRequestUnit', counted.writeUnits);
    } else {
      unpriced.push(name);
    }
  }
  return { usage, unpriced };
}
