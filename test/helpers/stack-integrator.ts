import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { IntegratorService } from '../../functions/integrator/integrator-service';
import { type SealingSetup, stackNoticeKey } from './emulator-lineages';
import { FakeMetrics, fakeLogger } from './factories';

/**
 * An integrator service on the deployed stack's table, KMS log key and notice key, with no witness (the
 * stack's default policy, docs/deployment-log.md), driven directly as docs allow. Each call makes
 * a new one: an integrator after a cold start.
 */
export function stackIntegrator(setup: SealingSetup): IntegratorService {
  return new IntegratorService({
    lineages: new DynamoDBLineageStore(setup.dynamodb, setup.stack.TableName),
    deployment: new DynamoDBDeploymentLogStore(setup.dynamodb, setup.stack.TableName),
    index: new DynamoDBIndexNodeStore(setup.dynamodb, setup.stack.TableName),
    signer: new KMSNoteSigner(setup.kms, setup.stack.LogKeyArn, setup.stack.LogName),
    anchor: new KMSMacAnchor(setup.kms, setup.stack.MacKeyArn),
    noticeKey: stackNoticeKey(setup),
    witness: null,
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: Date.now,
  });
}
