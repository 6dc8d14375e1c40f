import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
// The partition prefixes of triage reports (the only items the triage function may write) and of
// rejection records (the only items the guard may write), from the code that writes the items.
import {
  DEPLOYMENT_KEY_PREFIX,
  INDEX_NODE_KEY_PREFIX,
  REJECTION_KEY_PREFIX,
  TRIAGE_REPORT_KEY_PREFIX,
} from '../../adapters/lineage-keys';
import { CAPACITY_TARGET_UTILIZATION_PERCENT, type TableCapacity } from '../../shared/cost/table-capacity';
import { accountAdministersPolicy } from './account-administers-policy';
import { allowInKeyPolicy } from './signing-key';

/** Props of {@link LineageStore}. */
export interface LineageStoreProps {
  /** What happens to the table and the key when the stack is deleted or the resource replaced. */
  readonly removalPolicy: RemovalPolicy;
  /** DynamoDB deletion protection on the table. */
  readonly deletionProtection: boolean;
  /**
   * How the table is billed (docs/infrastructure.md, "Provisioned capacity"): on demand, or
   * provisioned read and write capacity auto scaled between its bounds to
   * {@link CAPACITY_TARGET_UTILIZATION_PERCENT} utilization. @default on demand
   */
  readonly capacity?: TableCapacity;
}

/**
 * Where lineages live: one DynamoDB table (string keys `pk`, `sk`; on demand, or provisioned and
 * auto scaled; point-in-time recovery) and the KMS HMAC_256 key that anchors record headers (docs/sealing.md), with an alias.
 *
 * Grants are stated in domain terms so that only the sealer can sign.
 */
export class LineageStore extends Construct {
  /** The lineage table. */
  readonly table: dynamodb.Table;
  /** The HMAC_256 key (GENERATE_VERIFY_MAC). HMAC keys have no automatic rotation: records name their key id. */
  readonly macKey: kms.Key;
  /** `alias/<stack name>-mac`. */
  readonly macKeyAlias: kms.Alias;

  constructor(scope: Construct, id: string, props: LineageStoreProps) {
    super(scope, id);
    const provisioned = props.capacity?.mode === 'provisioned' ? props.capacity : undefined;
    // The same construct either way, so the table keeps its logical id: switching billing modes is
    // an update in place (AWS limits switches to on demand: docs/infrastructure.md, "Provisioned
    // capacity"), never a new table.
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billingMode: provisioned ? dynamodb.BillingMode.PROVISIONED : dynamodb.BillingMode.PAY_PER_REQUEST,
      ...(provisioned && { readCapacity: provisioned.minCapacity, writeCapacity: provisioned.minCapacity }),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
    if (provisioned) {
      const bounds = { minCapacity: provisioned.minCapacity, maxCapacity: provisioned.maxCapacity };
      for (const scaling of [this.table.autoScaleReadCapacity(bounds), this.table.autoScaleWriteCapacity(bounds)]) {
        scaling.scaleOnUtilization({ targetUtilizationPercent: CAPACITY_TARGET_UTILIZATION_PERCENT });
      }
    }
    this.macKey = new kms.Key(this, 'MacKey', {
      description: 'Reseal record-header MAC anchor (HMAC_256)',
      keySpec: kms.KeySpec.HMAC_256,
      keyUsage: kms.KeyUsage.GENERATE_VERIFY_MAC,
      removalPolicy: props.removalPolicy,
      pendingWindow: Duration.days(7),
      policy: accountAdministersPolicy('AccountAdministersButDoesNotMac'),
    });
    // Verifying a MAC forges nothing: the account's auditors (`reseal verify --audit-macs`) and
    // the remote MCP function get kms:VerifyMac through IAM (docs/infrastructure.md, "Key policies").
    this.macKey.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AccountMayVerifyMacs',
        principals: [new iam.AccountRootPrincipal()],
        actions: ['kms:VerifyMac'],
        resources: ['*'],
      }),
    );
    this.macKeyAlias = this.macKey.addAlias(`alias/${Stack.of(this).stackName}-mac`);
  }

  /**
   * Sealer: append records and move heads (read/write), and sign headers (`kms:GenerateMac`, in
   * its role's policy and in the key policy, the only statement that allows it; `who` names it in the Sid).
   */
  grantAppend(grantee: iam.IGrantable, who: string): void {
    this.table.grantReadWriteData(grantee);
    this.macKey.grantGenerateMac(grantee);
    allowInKeyPolicy(this.macKey, `${who}GeneratesMacs`, grantee, ['kms:GenerateMac']);
  }

  /** Readers: load records and verify MACs (`kms:VerifyMac`, which the key policy leaves to IAM); never sign, never write. */
  grantVerify(grantee: iam.IGrantable): void {
    this.table.grantReadData(grantee);
    this.macKey.grantVerifyMac(grantee);
  }

  /** Readers without verification: load records and heads only. */
  grantRead(grantee: iam.IGrantable): void {
    this.table.grantReadData(grantee);
  }

  /** Triage: put items whose partition key starts with `TRIAGE#` (dynamodb:LeadingKeys), nothing else. */
  grantWriteTriageReports(grantee: iam.IGrantable): void {
    this.grantPutWithLeadingKey(grantee, TRIAGE_REPORT_KEY_PREFIX);
  }

  /** Guard: put items whose partition key starts with `REJECTION#` (dynamodb:LeadingKeys), nothing else. */
  grantRecordRejections(grantee: iam.IGrantable): void {
    this.grantPutWithLeadingKey(grantee, REJECTION_KEY_PREFIX);
  }

  /**
   * Integrator: put and update the deployment log's items (`DEPLOYMENT#`) and put index nodes
   * (`INDEX#`), singly, in transactions and in batches (dynamodb:LeadingKeys); no lineage item.
   */
  grantIntegrate(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'],
      resourceArns: [this.table.tableArn],
      conditions: {
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': [`${DEPLOYMENT_KEY_PREFIX}*`, `${INDEX_NODE_KEY_PREFIX}*`],
        },
      },
    });
  }

  private grantPutWithLeadingKey(grantee: iam.IGrantable, prefix: string): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:PutItem'],
      resourceArns: [this.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${prefix}*`] } },
    });
  }
}
