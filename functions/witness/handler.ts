import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBWitnessStore } from '../../adapters/dynamodb-witness-store';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { parseRecoveryKeys } from '../../shared/witness/recovery-keys';
import { parseTrustedLogs } from '../../shared/witness/trusted-logs';
import { requireEnv } from '../common/require-env';
import { createWitnessHandler } from './create-handler';
import { WitnessService } from './witness-service';

// Built once per cold start, reused by warm invocations. A bad LOG_KEYS fails the cold start.
const logger = new Logger({ serviceName: 'reseal-witness' });

const service = new WitnessService({
  store: new DynamoDBWitnessStore(new DynamoDBClient({}), requireEnv('TABLE_NAME')),
  signer: new KMSNoteSigner(new KMSClient({}), requireEnv('WITNESS_KEY_ID'), requireEnv('WITNESS_NAME')),
  trusted: parseTrustedLogs(requireEnv('LOG_KEYS')),
  recoveryKeys: parseRecoveryKeys(process.env.RECOVERY_KEYS),
  logger,
  clock: Date.now,
});

/** Lambda entry point: function URL `POST /add-checkpoint` → cosign or refuse (docs/witness.md). */
export const handler = createWitnessHandler(service, logger);
