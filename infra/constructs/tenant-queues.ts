import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DEPLOYMENT_KEY_PREFIX,
  INDEX_NODE_KEY_PREFIX,
  LINEAGE_KEY_PREFIX,
  MANIFEST_KEY_PREFIX,
  REJECTION_KEY_PREFIX,
  TRIAGE_REPORT_KEY_PREFIX,
} from '../../adapters/lineage-keys';
import { DetailType, EVENT_SOURCE } from '../../shared/pipeline/detail-type';
import { recallSourceOf } from '../../shared/tenancy/recall-source';
import { type Tenant, tenantLineagePrefix } from '../../shared/tenancy/tenants';
import { deadLetterDepthAlarm } from './dead-letter-depth-alarm';
import { eventSourceVisibilityTimeout } from './event-source-visibility-timeout';
import { KEY_ADMIN_ACTIONS } from './key-admin-actions';
import { DEFAULT_MAX_RECEIVE_COUNT, MAX_MESSAGE_SIZE_BYTES, QUEUE_RETENTION } from './queue-consumer';
import type { ResealFunction } from './reseal-function';

/** Props of {@link TenantQueues}. */
export interface TenantQueuesProps {
  /** The tenants, checked (`parseTenants`): ids unique, each sender in one tenant. */
  readonly tenants: readonly Tenant[];
  /** The guard: it consumes every tenant queue and learns the tenant from the record's `eventSourceARN`. */
  readonly guard: ResealFunction;
  /** The guard's timeout: each queue's visibility timeout is six times it. */
  readonly guardTimeout: Duration;
  /** The guard's batching window on each tenant queue, as on the stack's own (`guardBatchingWindowSeconds`). @default none */
  readonly guardBatchingWindow?: Duration;
  /** The remote MCP function's role: it relays the writes its callers signed to their tenant's queue. */
  readonly relay: iam.IRole;
  readonly removalPolicy: RemovalPolicy;
}

/** What the stack made for one tenant. */
export interface TenantResources {
  readonly tenant: Tenant;
  /** The tenant's `residual-writes` queue. */
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  /** The tenant's Ed25519 writer key (`ECC_NIST_EDWARDS25519`, `SIGN_VERIFY`). */
  readonly writerKey: kms.Key;
  readonly deadLetterAlarm: cloudwatch.Alarm;
}

/**
 * Tenancy in the stack (docs/authorship.md, "Tenancy"; docs/infrastructure.md, "Tenants"). SQS has
 * no IAM condition key on message content, so IAM ties a principal to its lineages through the
 * queue it may send to. Per tenant:
 *
 * - a `residual-writes` queue (as the stack's own: SSE-SQS, TLS only, 1 MiB, 4 days, its DLQ and
 *   alarm) whose queue policy allows `sqs:SendMessage` to the tenant's `senderPrincipals` and
 *   denies it to every other principal but the remote MCP function's role
 *   (`OnlyTheTenantMaySendWrites`, `ArnNotEquals aws:PrincipalArn`);
 * - the guard's event source on it; the guard maps the record's `eventSourceARN` to the tenant
 *   (`TENANT_QUEUES`) and refuses a lineage id outside `<tenant>/` (`TENANT_MISMATCH`);
 * - a KMS Ed25519 writer key whose key policy lets the account administer it but not sign
 *   (`AccountAdministersButDoesNotSign`), and lets only the tenant's `signerPrincipals`
 *   (default its senders) `kms:Sign` and `kms:GetPublicKey` (`OnlyTheTenantSigns`);
 * - its recall source `reseal.tenant.<id>` on the bus ({@link TenantQueues.recallBusStatements}).
 */
export class TenantQueues extends Construct {
  /** One entry per tenant, in the order given. */
  readonly tenants: readonly TenantResources[];
  readonly #relay: iam.IRole;

  constructor(scope: Construct, id: string, props: TenantQueuesProps) {
    super(scope, id);
    this.#relay = props.relay;
    const stackName = Stack.of(this).stackName;
    this.tenants = props.tenants.map((tenant) => {
      const scope = new Construct(this, `Tenant-${tenant.id}`);
      const deadLetterQueue = new sqs.Queue(scope, 'DeadLetterQueue', {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
        retentionPeriod: Duration.days(14),
      });
      const queue = new sqs.Queue(scope, 'Queue', {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
        visibilityTimeout: eventSourceVisibilityTimeout(props.guardTimeout, props.guardBatchingWindow),
        retentionPeriod: QUEUE_RETENTION,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: DEFAULT_MAX_RECEIVE_COUNT },
      });
      queue.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'TheTenantMaySendWrites',
          principals: tenant.senderPrincipals.map((arn) => new iam.ArnPrincipal(arn)),
          actions: ['sqs:SendMessage'],
          resources: [queue.queueArn],
        }),
      );
      queue.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'OnlyTheTenantMaySendWrites',
          effect: iam.Effect.DENY,
          principals: [new iam.AnyPrincipal()],
          actions: ['sqs:SendMessage'],
          resources: [queue.queueArn],
          conditions: { ArnNotEquals: { 'aws:PrincipalArn': [...tenant.senderPrincipals, props.relay.roleArn] } },
        }),
      );
      queue.grantSendMessages(props.relay);
      props.guard.fn.addEventSource(
        new SqsEventSource(queue, {
          batchSize: 10,
          reportBatchItemFailures: true,
          ...(props.guardBatchingWindow ? { maxBatchingWindow: props.guardBatchingWindow } : {}),
        }),
      );
      const deadLetterAlarm = deadLetterDepthAlarm(
        scope,
        deadLetterQueue,
        `${tenant.id} residual-writes dead-letter queue`,
      );

      const signers = tenant.signerPrincipals ?? tenant.senderPrincipals;
      const writerKey = new kms.Key(scope, 'WriterKey', {
        description: `Reseal writer key of tenant ${tenant.id} (Ed25519, signs write requests)`,
        keySpec: kms.KeySpec.ECC_NIST_EDWARDS25519,
        keyUsage: kms.KeyUsage.SIGN_VERIFY,
        removalPolicy: props.removalPolicy,
        pendingWindow: Duration.days(7),
        policy: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({
              sid: 'AccountAdministersButDoesNotSign',
              principals: [new iam.AccountRootPrincipal()],
              actions: [...KEY_ADMIN_ACTIONS],
              resources: ['*'],
            }),
            new iam.PolicyStatement({
              sid: 'OnlyTheTenantSigns',
              principals: signers.map((arn) => new iam.ArnPrincipal(arn)),
              actions: ['kms:Sign', 'kms:GetPublicKey'],
              resources: ['*'],
            }),
          ],
        }),
      });
      writerKey.addAlias(`alias/${stackName}-writer-${tenant.id}`);
      return { tenant, queue, deadLetterQueue, writerKey, deadLetterAlarm };
    });
  }

  /** `TENANT_QUEUES` of the guard: `[{ queueArn, tenantId }]`, as JSON (a token cannot be a JSON key). */
  tenantQueuesJson(): string {
    return Stack.of(this).toJsonString(
      this.tenants.map((t) => ({ queueArn: t.queue.queueArn, tenantId: t.tenant.id })),
    );
  }

  /**
   * The bus policy of a stack with tenants (docs/authorship.md, "Tenancy"; docs/triage.md,
   * "Tenants"): IAM's `events:source` condition ties a `RecallRequested` to its tenant. Per tenant,
   * `TheTenantMayRecall-<id>` allows `events:PutEvents` of its recall source and detail type to its
   * senders (a sender in another account needs only its own identity policy), and
   * `OnlyTheTenantRecallsAsItself-<id>` denies that source to every principal but its senders and
   * the remote MCP role; `RecallsNameTheirTenant` denies a `RecallRequested` of the stack's own
   * source `reseal` to everyone (it would name no tenant). `busArn` is built from the bus's name:
   * the policy is a property of the bus itself, which cannot refer to its own `Arn` attribute. The
   * stack adds these to the bus policy beside the statements of the detail-types its functions
   * publish (`publisherBusStatements`).
   */
  recallBusStatements(busArn: string): iam.PolicyStatement[] {
    const putEvents = { actions: ['events:PutEvents'], resources: [busArn] };
    return [
      ...this.tenants.flatMap(({ tenant }) => [
        new iam.PolicyStatement({
          sid: `TheTenantMayRecall-${tenant.id}`,
          principals: tenant.senderPrincipals.map((arn) => new iam.ArnPrincipal(arn)),
          ...putEvents,
          conditions: {
            StringEquals: {
              'events:source': recallSourceOf(tenant.id),
              'events:detail-type': DetailType.RecallRequested,
            },
          },
        }),
        new iam.PolicyStatement({
          sid: `OnlyTheTenantRecallsAsItself-${tenant.id}`,
          effect: iam.Effect.DENY,
          principals: [new iam.AnyPrincipal()],
          ...putEvents,
          conditions: {
            StringEquals: { 'events:source': recallSourceOf(tenant.id) },
            ArnNotEquals: { 'aws:PrincipalArn': [...tenant.senderPrincipals, this.#relay.roleArn] },
          },
        }),
      ]),
      new iam.PolicyStatement({
        sid: 'RecallsNameTheirTenant',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        ...putEvents,
        conditions: {
          StringEquals: { 'events:source': EVENT_SOURCE, 'events:detail-type': DetailType.RecallRequested },
        },
      }),
    ];
  }

  /**
   * The lineage table's resource policy in a stack with tenants (docs/authorship.md, "Tenancy", reads), per
   * tenant: `TheTenantReads-<id>` allows its `readerPrincipals` (when given) `GetItem`, `Query` and
   * `BatchGetItem` on the partitions {@link tenantReadableKeys} names, under
   * `ForAllValues:StringLike dynamodb:LeadingKeys`; `TenantReadsOnlyItsPartitions-<id>` denies
   * every principal of the tenant (senders, signers, readers) those reads of any other partition
   * (`ForAnyValue:StringNotLike`), and `TenantOnlyReads-<id>` every other action on the table
   * (`Scan` has no leading key, so it could not be bounded). The denies hold whatever identity
   * policy the account gives a tenant's principal.
   */
  restrictTableReads(table: dynamodb.Table): void {
    const reads = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'];
    for (const { tenant } of this.tenants) {
      const partitions = tenantReadableKeys(tenant.id);
      const everyone = [
        ...new Set([
          ...tenant.senderPrincipals,
          ...(tenant.signerPrincipals ?? []),
          ...(tenant.readerPrincipals ?? []),
        ]),
      ].map((arn) => new iam.ArnPrincipal(arn));
      if (tenant.readerPrincipals !== undefined) {
        table.addToResourcePolicy(
          new iam.PolicyStatement({
            sid: `TheTenantReads-${tenant.id}`,
            principals: tenant.readerPrincipals.map((arn) => new iam.ArnPrincipal(arn)),
            actions: reads,
            resources: ['*'],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': partitions } },
          }),
        );
      }
      table.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: `TenantReadsOnlyItsPartitions-${tenant.id}`,
          effect: iam.Effect.DENY,
          principals: everyone,
          actions: reads,
          resources: ['*'],
          conditions: { 'ForAnyValue:StringNotLike': { 'dynamodb:LeadingKeys': partitions } },
        }),
      );
      table.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: `TenantOnlyReads-${tenant.id}`,
          effect: iam.Effect.DENY,
          principals: everyone,
          notActions: reads,
          resources: ['*'],
        }),
      );
    }
  }

  /** The rule's sources: the stack's own (refused by triage, with a recorded answer) and each tenant's recall source. */
  recallSources(): string[] {
    return [EVENT_SOURCE, ...this.tenants.map((t) => recallSourceOf(t.tenant.id))];
  }

  /** `TENANT_IDS` of the triage function: the tenant ids, as JSON. */
  tenantIdsJson(): string {
    return JSON.stringify(this.tenants.map((t) => t.tenant.id));
  }

  /** `TENANTS` of the remote MCP function: each tenant's id, senders and queue URL, as JSON. */
  relayTenantsJson(): string {
    return Stack.of(this).toJsonString(
      this.tenants.map((t) => ({
        id: t.tenant.id,
        senderPrincipals: t.tenant.senderPrincipals,
        queueUrl: t.queue.queueUrl,
      })),
    );
  }
}

/**
 * The partition keys a tenant's principal may read (`dynamodb:LeadingKeys` patterns,
 * docs/authorship.md, "Tenancy", reads): its own lineages, rejections, triage reports and
 * manifests (`<prefix><tenant>/*`: a manifest item is keyed by its lineage,
 * `MANIFEST#<lineageId>#<digest>`, so no tenant reads another's by digest), and the shared
 * partitions every client reads: `DEPLOYMENT#*` and `INDEX#*` (the deployment log and index, one
 * per stack, which name every tenant's lineage ids and head hashes).
 */
export function tenantReadableKeys(tenantId: string): string[] {
  const own = tenantLineagePrefix(tenantId);
  return [
    `${LINEAGE_KEY_PREFIX}${own}*`,
    `${REJECTION_KEY_PREFIX}${own}*`,
    `${TRIAGE_REPORT_KEY_PREFIX}${own}*`,
    `${MANIFEST_KEY_PREFIX}${own}*`,
    `${DEPLOYMENT_KEY_PREFIX}*`,
    `${INDEX_NODE_KEY_PREFIX}*`,
  ];
}
