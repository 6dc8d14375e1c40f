import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import {
  DEFAULT_INTEGRATION_INTERVAL_SECONDS as CLIENT_DEFAULT_INTERVAL_SECONDS,
  DEFAULT_MAX_AGE_SECONDS,
} from '../client/freshness-policy';
import type { StackOutputs } from '../client/stack-outputs';
import { remoteFreshnessPolicy } from '../functions/mcp/remote-freshness-policy';
import { MAX_BATCHING_WINDOW_SECONDS } from '../shared/cost/deploy-settings';
import { type TableCapacityMode, tableCapacity } from '../shared/cost/table-capacity';
import { DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../shared/guard/policy';
import { heartbeatThresholdSeconds } from '../shared/integrator/heartbeat-due';
import { logNameOf } from '../shared/log/log-names';
import { DetailType } from '../shared/pipeline/detail-type';
import { SEALER_BATCH_SIZE } from '../shared/pipeline/sealer-batch-size';
import { DEFAULT_HEAD_LAYOUT, HeadLayout } from '../shared/ports/head-layout';
import { parseTenants, type Tenant } from '../shared/tenancy/tenants';
import { parseRecoveryKeys } from '../shared/witness/recovery-keys';
import { DEFAULT_HEARTBEAT_RATE, HeartbeatSchedule } from './constructs/heartbeat-schedule';
import { LineageStore } from './constructs/lineage-store';
import { McpApi } from './constructs/mcp-api';
import { NoticeKey } from './constructs/notice-key';
import { QUEUE_RETENTION, QueueConsumer } from './constructs/queue-consumer';
import { ResealFunction } from './constructs/reseal-function';
import { SigningKey } from './constructs/signing-key';
import { TenantQueues } from './constructs/tenant-queues';
import { TriageRule } from './constructs/triage-rule';
import { eventBusNameOf } from './event-bus-name';
import {
  guardBatchingWaitSeconds,
  LOW_TRAFFIC_BATCHING_WAIT_SECONDS,
  RECEIPT_AGE_PER_GUARD_WAIT_SECOND,
} from './guard-batching-wait';
import { publisherBusStatements } from './publisher-bus-statements';

/** Props of {@link ResealStack}. */
export interface ResealStackProps extends StackProps {
  /**
   * What happens to the table, the MAC key and the log groups when the stack is deleted.
   * @default RemovalPolicy.DESTROY (development); use RETAIN for a real deployment
   */
  readonly removalPolicy?: RemovalPolicy;
  /** DynamoDB deletion protection on the lineage table. @default false */
  readonly deletionProtection?: boolean;
  /**
   * How the lineage table is billed (docs/infrastructure.md, "Provisioned capacity"): `on-demand`
   * (per request unit; no capacity planning, $0 idle) or `provisioned` (read and write capacity
   * auto scaled to 70 % utilization between `tableMinCapacity` and `tableMaxCapacity`: about 41 % of
   * on demand's price per unit under steady traffic, the minimum paid idle, bursts above the
   * capacity throttled until it scales). Checked with `tableCapacity` (shared/cost/table-capacity.ts).
   * The witness stack's table stays on demand. @default 'on-demand'
   */
  readonly tableCapacity?: TableCapacityMode;
  /** Least read and least write capacity units of a provisioned table, whole. @default DEFAULT_TABLE_MIN_CAPACITY (5) */
  readonly tableMinCapacity?: number;
  /** Most read and most write capacity units auto scaling may set, whole. @default DEFAULT_TABLE_MAX_CAPACITY (40,000) */
  readonly tableMaxCapacity?: number;
  /**
   * Endpoint the functions' SDK clients call instead of AWS, passed as `AWS_ENDPOINT_URL`.
   * Only for an emulator that does not set it itself; never for real AWS.
   * @default undefined
   */
  readonly endpointOverride?: string;
  /**
   * Endpoints by function, keyed by Powertools service name (`reseal-guard`, `reseal-sealer`,
   * `reseal-integrator`, `reseal-triage`, `reseal-mcp`), each over `endpointOverride` for that
   * function: the emulator bench gives each function its own path on its counting proxy, to
   * count each function's calls apart (docs/infrastructure.md, "Cost and quotas"). Never for real AWS.
   * @default undefined
   */
  readonly endpointOverrides?: Readonly<Record<string, string>>;
  /**
   * Oldest freshness receipt the guard accepts (the sealer re-checks with the same value); it bounds
   * the guard's batching window (`guardBatchingWindowSeconds`). @default DEFAULT_MAX_RECEIPT_AGE_SECONDS (900 s, shared/guard/policy.ts)
   */
  readonly maxReceiptAgeSeconds?: number;
  /**
   * The integration interval, whole seconds: the integration queue's batching window
   * (docs/deployment-log.md, "Freshness window and interval"). @default DEFAULT_INTEGRATION_INTERVAL_SECONDS (2)
   */
  readonly integrationIntervalSeconds?: number;
  /**
   * How long the guard's event sources (`residual-writes`, and each tenant's queue) gather writes
   * before invoking the guard, whole seconds, 0 to 300 (SQS's `MaximumBatchingWindowInSeconds`; 0:
   * invoke on whatever one poll returns). The guard's per-invocation costs (its pollers'
   * `ReceiveMessage` and `DeleteMessageBatch`, its `SendMessageBatch` to `seal-requests`, a Lambda
   * request, its start-up GB-s and log lines) are shared by a batch's writes, so a window that
   * fills batches of 10 cuts them to a tenth. The price is latency, and receipt age: the guard
   * judges a freshness receipt's age at its own clock (`maxReceiptAgeSeconds`), so every second a
   * write waits in the window ages its receipt (its writer signature is judged against the send
   * time and does not age). With a window, a write may wait the window, or up to
   * {@link LOW_TRAFFIC_BATCHING_WAIT_SECONDS} at very low traffic (AWS's documented wait), whichever
   * is longer; refused at synth when that wait exceeds a quarter of `maxReceiptAgeSeconds`
   * ({@link RECEIPT_AGE_PER_GUARD_WAIT_SECOND}), so that three quarters of the age stay for what it is
   * for (the writer's probe-to-send time and the queue's own delays) and a sparse write is not
   * refused `RECEIPT_EXPIRED` for the window alone (docs/infrastructure.md, "The guard's batching
   * window"). Each queue's visibility timeout grows by the window.
   * @default DEFAULT_GUARD_BATCHING_WINDOW_SECONDS (0: none)
   */
  readonly guardBatchingWindowSeconds?: number;
  /**
   * The witness the integrator submits deployment checkpoints to, with the policy a checkpoint
   * must meet to be published (docs/witness.md, "Deploy order"). @default none: published unwitnessed
   */
  readonly witness?: { readonly url: string; readonly policy: string; readonly maxAgeSeconds?: number };
  /**
   * The deployment log size, leaves, below which a cold integrator refuses the stored head and the
   * sealer refuses every run (`DEPLOYMENT_MIN_SIZE`, docs/deployment-log.md, "Cold start"): the
   * only protection a cold start has against a deleted or restored deployment head without a
   * witness, and the sealer's only one at all. @default 0
   */
  readonly deploymentMinSize?: number;
  /**
   * Whether the sealer also signs a lineage checkpoint per run beside its head-state MAC
   * (`SIGN_LINEAGE_CHECKPOINTS`; docs/deployment-log.md, "What changes for the sealer", the
   * migration). `false` (the default, step 3): no `Sign` per run, heads carrying the MAC alone,
   * and the sealer holds no `kms:Sign` on the log key. `true` restores the signed checkpoints
   * and that grant (for readers from before step 2). @default false
   */
  readonly signLineageCheckpoints?: boolean;
  /**
   * The head item's attributes the sealer writes (`HEAD_LAYOUT`; docs/sealing.md, "Migration"):
   * `small` (the default, deploy 3: about 0.5 KB, 4 WCU a sparse write) or `compatible` (deploy
   * 2: still the tip record's header copy, MAC, key id, residual id and a JSON hex frontier, 5 WCU,
   * so that a sealer of the previous version still running during the deploy authenticates the
   * heads the new one writes). Upgrading from a sealer that appends in one transaction: deploy
   * `compatible` first, then `small` once no previous sealer runs. A small head carries no signed
   * checkpoint: with `signLineageCheckpoints` the default is `compatible`, and `small` is refused.
   * @default 'small' ('compatible' with signLineageCheckpoints)
   */
  readonly headLayout?: HeadLayout;
  /**
   * The tenants (docs/authorship.md, "Tenancy"; docs/infrastructure.md, "Tenants"): per tenant a
   * `residual-writes` queue only its `senderPrincipals` (and the remote MCP function) may send
   * to, consumed by the guard, which binds the tenant from the queue; and a KMS writer key only its
   * `signerPrincipals` may sign with. The stack's own `residual-writes` queue then takes no write.
   * Checked with `parseTenants`. @default none: one tenant, the stack's own queue
   */
  readonly tenants?: readonly Tenant[];
  /**
   * The operator's recovery keys (signed-note vkeys separated by white space) whose signature the
   * integrator requires on a re-anchor statement before its log key signs it (`RECOVERY_KEYS`,
   * docs/deployment-log.md, "Re-anchor"). Validated at synth. @default none: no re-anchor
   */
  readonly recoveryKeys?: string;
  /**
   * The period of the integrator's heartbeat, whole minutes; the schedule exists only with a
   * witness (docs/deployment-log.md, "Freshness window and interval"). The heartbeat re-cosigns
   * once the published quorum is a third of the maximum age old, so that third plus the period
   * must stay below the maximum age. @default DEFAULT_HEARTBEAT_RATE (1 minute)
   */
  readonly heartbeatRate?: Duration;
  /**
   * The C2SP tlog-policy (and its maximum age of cosignatures, whole seconds) the remote MCP
   * server checks deployment checkpoints against, so its answers carry freshness under it
   * (`FRESHNESS_POLICY`, docs/mcp.md, "Freshness"). Validated at synth as every client reads a
   * policy (`freshnessPolicy`), and it must name the stack's log.
   * @default the `witness` prop's policy and maximum age; without a witness, the stack's default
   *   (its log key alone, `quorum none`)
   */
  readonly mcpPolicy?: { readonly policy: string; readonly maxAgeSeconds?: number };
}

/** The default integration interval, seconds (docs/deployment-log.md, "Freshness window and interval"): the client's default, one value. */
export const DEFAULT_INTEGRATION_INTERVAL_SECONDS = CLIENT_DEFAULT_INTERVAL_SECONDS;
/** The default maximum age of cosignatures, seconds (docs/deployment-log.md): the client's default, one value. */
export const DEFAULT_WITNESS_MAX_AGE_SECONDS = DEFAULT_MAX_AGE_SECONDS;
/**
 * The guard's default batching window, seconds: 0, none. A window fills the guard's batches (10
 * writes, the event source's batch size) and saves its per-invocation costs from about 10 writes/s
 * up (at 1 s: 0.135 guard invocations a sparse write against 0.9, docs/infrastructure.md, "Cost
 * and quotas"), but below that rate the wait is not bounded by the window: AWS documents that with
 * a window set and very little traffic Lambda may wait up to {@link LOW_TRAFFIC_BATCHING_WAIT_SECONDS}
 * before invoking (docs/infrastructure.md, "The guard's batching window"), which a remote MCP
 * write's wait (25 s) would not survive. So it is off unless the operator, knowing the traffic,
 * turns it on (`-c guardBatchingWindowSeconds=1`).
 */
export const DEFAULT_GUARD_BATCHING_WINDOW_SECONDS = 0;
/** Notices per integration at most (Lambda's 6 MB payload holds 500 notices of 40 residual ids each). */
export const INTEGRATION_BATCH_SIZE = 500;
/**
 * Integrator invocations the integration queue's event source runs at once: 2, the least SQS
 * allows (docs/deployment-log.md, "One integration at a time"); the integration lease lets one of
 * the two sign at a time.
 */
export const INTEGRATION_MAX_CONCURRENCY = 2;

/**
 * Reseal: agents send residual writes to SQS → guard → FIFO seal requests → sealer (KMS HMAC,
 * DynamoDB transactions) → `ResidualSealed`; `RecallRequested` on the bus → triage.
 * See docs/infrastructure.md.
 */
export class ResealStack extends Stack {
  constructor(scope: Construct, id: string, props: ResealStackProps = {}) {
    super(scope, id, props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;
    const tenants = props.tenants === undefined ? undefined : parseTenants(props.tenants);
    const common = {
      removalPolicy,
      endpointOverride: props.endpointOverride,
      endpointOverrides: props.endpointOverrides,
    };

    const store = new LineageStore(this, 'LineageStore', {
      removalPolicy,
      deletionProtection: props.deletionProtection ?? false,
      capacity: tableCapacity({
        mode: props.tableCapacity,
        minCapacity: props.tableMinCapacity,
        maxCapacity: props.tableMaxCapacity,
      }),
    });
    // Three Ed25519 keys (docs/verifiable-log.md, "Keys"): the log key signs the integrator's
    // deployment checkpoints, the guard key the guard's refusals, the sealer key the sealer's
    // refusals: one signer each.
    const logKey = new SigningKey(this, 'LogKey', {
      purpose: 'lineage log: checkpoints',
      aliasSuffix: 'log',
      removalPolicy,
    });
    const guardKey = new SigningKey(this, 'GuardKey', {
      purpose: 'stale-state guard refusals',
      aliasSuffix: 'guard',
      removalPolicy,
    });
    const sealerKey = new SigningKey(this, 'SealerKey', {
      purpose: 'sealer refusals',
      aliasSuffix: 'sealer',
      removalPolicy,
    });
    // The notice key (docs/deployment-log.md, "Sealed-run notices"): the sealer MACs each notice under
    // one of its data keys, the integrator unwraps them; no one else may use it.
    const noticeKey = new NoticeKey(this, 'NoticeKey', { logName: logNameOf(this.stackName), removalPolicy });
    // Named after the stack (unique per account and region), not after the construct path: two apps
    // whose stacks share the construct id `ResealStack` but deploy under other names would
    // otherwise collide on one bus name (docs/infrastructure.md, "Resources").
    const bus = new events.EventBus(this, 'EventBus', {
      eventBusName: eventBusNameOf(this.stackName),
      description: 'Reseal events (source "reseal")',
    });
    // Each function gets exactly the variables its handler.ts reads (docs/pipeline.md, "Environment").
    const shared = {
      TABLE_NAME: store.table.tableName,
      EVENT_BUS_NAME: bus.eventBusName,
      LOG_NAME: logNameOf(this.stackName),
    };

    // A small head carries no signed checkpoint (docs/sealing.md, "Migration").

    const headLayout =
      props.headLayout ?? (props.signLineageCheckpoints === true ? HeadLayout.COMPATIBLE : DEFAULT_HEAD_LAYOUT);

    if (props.signLineageCheckpoints === true && headLayout === HeadLayout.SMALL) {
      throw new Error(
        'signLineageCheckpoints needs headLayout "compatible": a small head carries no signed checkpoint',
      );
    }

    const minSize = props.deploymentMinSize ?? 0;
    if (!Number.isSafeInteger(minSize) || minSize < 0) {
      throw new Error('deploymentMinSize: expected a whole number of leaves, 0 or more');
    }
    const sealer = new QueueConsumer(this, 'SealRequests', {
      name: 'seal-requests',
      fifo: true,
      // A ResidualSealed detail's bound on runs follows from it (MAX_RESIDUAL_SEALED_RUNS).
      batchSize: SEALER_BATCH_SIZE,
      function: {
        ...common,
        entry: 'functions/sealer/handler.ts',
        serviceName: 'reseal-sealer',
        description: 'Seals accepted residuals into their lineage (KMS HMAC, record puts then the head move)',
        environment: {
          ...shared,
          MAC_KEY_ID: store.macKey.keyArn,
          LOG_KEY_ID: logKey.key.keyArn,
          SEALER_KEY_ID: sealerKey.key.keyArn,
          NOTICE_KEY_ID: noticeKey.key.keyArn,
          SEAL_QUEUE_RETENTION_SECONDS: String(QUEUE_RETENTION.toSeconds()),
          // Each run is checked against the index under the integrator's witness policy (docs/sealing.md, "The index floor").
          WITNESS_POLICY: props.witness?.policy ?? '',
          WITNESS_MAX_AGE_SECONDS: String(props.witness?.maxAgeSeconds ?? DEFAULT_WITNESS_MAX_AGE_SECONDS),
          DEPLOYMENT_MIN_SIZE: String(minSize),
          SIGN_LINEAGE_CHECKPOINTS: String(props.signLineageCheckpoints ?? false),
          HEAD_LAYOUT: headLayout,
        },
        timeout: Duration.seconds(30),
      },
    });
    store.grantAppend(sealer.consumer.fn, 'Sealer');
    // The sealer authenticates the head it extends by its head-state MAC (docs/verifiable-log.md, "Appending").
    store.macKey.grantVerifyMac(sealer.consumer.fn);
    // The log key: the sealer reads the deployment checkpoint and old heads' signed checkpoints with
    // it, and signs with it only where the operator turns lineage checkpoints back on
    // (docs/deployment-log.md, "What changes for the sealer", step 3): by default the integrator is
    // the log key's only signer.
    if (props.signLineageCheckpoints === true) logKey.grantSign(sealer.consumer.fn, 'Sealer');
    else logKey.grantPublicKey(sealer.consumer.fn, 'Sealer');
    // Its refusals: the sealer key, whose only signer it is.
    sealerKey.grantSign(sealer.consumer.fn, 'Sealer');
    // Its notices' and heads' MACs: data keys of the notice key, which only it may generate; and
    // the Decrypt of another container's data key, to authenticate the heads it MAC'd.
    noticeKey.grantGenerateDataKey(sealer.consumer.fn, 'Sealer');
    noticeKey.grantDecrypt(sealer.consumer.fn, 'Sealer');
    bus.grantPutEventsTo(sealer.consumer.fn);

    // The integrator (docs/deployment-log.md): one notice per sealed run on a standard queue, one
    // integration per batching window, one log-key signature per integration.
    const interval = props.integrationIntervalSeconds ?? DEFAULT_INTEGRATION_INTERVAL_SECONDS;
    if (!Number.isSafeInteger(interval) || interval < 1 || interval > MAX_BATCHING_WINDOW_SECONDS) {
      throw new Error(
        `integrationIntervalSeconds: expected whole seconds, 1 to ${MAX_BATCHING_WINDOW_SECONDS} (the SQS batching window)`,
      );
    }
    parseRecoveryKeys(props.recoveryKeys);
    const maxAgeSeconds = props.witness?.maxAgeSeconds ?? DEFAULT_WITNESS_MAX_AGE_SECONDS;
    const heartbeatThreshold = heartbeatThresholdSeconds(maxAgeSeconds);
    const heartbeatRate = props.heartbeatRate ?? DEFAULT_HEARTBEAT_RATE;
    const rateSeconds = heartbeatRate.toSeconds();
    if (!Number.isSafeInteger(rateSeconds / 60) || rateSeconds < 60) {
      throw new Error('heartbeatRate: expected whole minutes, 1 or more (EventBridge Scheduler rate)');
    }
    if (heartbeatThreshold + rateSeconds >= maxAgeSeconds) {
      throw new Error(
        `heartbeatRate: ${rateSeconds} s plus the heartbeat threshold ${heartbeatThreshold} s must stay below the maximum age ${maxAgeSeconds} s`,
      );
    }
    const guardWindow = props.guardBatchingWindowSeconds ?? DEFAULT_GUARD_BATCHING_WINDOW_SECONDS;
    if (!Number.isSafeInteger(guardWindow) || guardWindow < 0 || guardWindow > MAX_BATCHING_WINDOW_SECONDS) {
      throw new Error(
        `guardBatchingWindowSeconds: expected whole seconds, 0 to ${MAX_BATCHING_WINDOW_SECONDS} (the SQS batching window)`,
      );
    }
    const receiptAge = props.maxReceiptAgeSeconds ?? DEFAULT_MAX_RECEIPT_AGE_SECONDS;
    const guardWait = guardBatchingWaitSeconds(guardWindow);
    if (guardWait * RECEIPT_AGE_PER_GUARD_WAIT_SECOND > receiptAge) {
      throw new Error(
        `guardBatchingWindowSeconds: ${guardWindow} s may hold a write up to ${guardWait} s before the guard judges its receipt, ` +
          `more than a quarter of maxReceiptAgeSeconds (${receiptAge} s); shorten the window (0: none) or allow older receipts`,
      );
    }
    const guardBatchingWindow = guardWindow > 0 ? Duration.seconds(guardWindow) : undefined;
    const integrator = new QueueConsumer(this, 'Integration', {
      name: 'integration',
      fifo: false,
      batchSize: INTEGRATION_BATCH_SIZE,
      maxBatchingWindow: Duration.seconds(interval),
      maxConcurrency: INTEGRATION_MAX_CONCURRENCY,
      function: {
        ...common,
        entry: 'functions/integrator/handler.ts',
        serviceName: 'reseal-integrator',
        description: 'Integrates sealed runs into the verifiable index and signs one deployment checkpoint',
        environment: {
          TABLE_NAME: store.table.tableName,
          LOG_NAME: logNameOf(this.stackName),
          LOG_KEY_ID: logKey.key.keyArn,
          // Lineage heads are authenticated by the sealer's head-state MAC (kms:VerifyMac only).
          MAC_KEY_ID: store.macKey.keyArn,
          // Unless an authenticated notice names them (kms:Decrypt of the notice key's data keys only).
          NOTICE_KEY_ID: noticeKey.key.keyArn,
          WITNESS_URL: props.witness?.url ?? '',
          WITNESS_POLICY: props.witness?.policy ?? '',
          WITNESS_MAX_AGE_SECONDS: String(maxAgeSeconds),
          DEPLOYMENT_MIN_SIZE: String(minSize),
          RECOVERY_KEYS: props.recoveryKeys ?? '',
          HEARTBEAT_THRESHOLD_SECONDS: String(heartbeatThreshold),
        },
        timeout: Duration.seconds(60),
      },
    });
    store.grantRead(integrator.consumer.fn);
    store.grantIntegrate(integrator.consumer.fn);
    store.macKey.grantVerifyMac(integrator.consumer.fn);
    logKey.grantSign(integrator.consumer.fn, 'Integrator');
    noticeKey.grantDecrypt(integrator.consumer.fn, 'Integrator');
    // Only a witness's cosignatures age: without one there is nothing for a heartbeat to refresh.
    if (props.witness) {
      new HeartbeatSchedule(this, 'Heartbeat', { integrator: integrator.consumer.fn, rate: heartbeatRate });
    }
    sealer.consumer.fn.addEnvironment('INTEGRATION_QUEUE_URL', integrator.queue.queueUrl);
    // A batch failed for a held lease is made visible again in seconds (its event source already
    // grants sqs:ChangeMessageVisibility).
    integrator.consumer.fn.addEnvironment('INTEGRATION_QUEUE_URL', integrator.queue.queueUrl);
    integrator.queue.grantSendMessages(sealer.consumer.fn);
    // Only the sealer may send notices: an explicit deny for every other principal, so no one else
    // triggers integrations through the queue. What lets a notice vouch for the head it names is its
    // MAC under the notice key, not this channel (docs/deployment-log.md, "Integration", step 2).
    // Nothing else sends here (the heartbeat and the re-anchor invoke the function); a redrive from
    // the DLQ is denied too (docs/infrastructure.md, "Permissions").
    integrator.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OnlyTheSealerMaySendNotices',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [integrator.queue.queueArn],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': sealer.consumer.role.roleArn } },
      }),
    );

    const guard = new QueueConsumer(this, 'ResidualWrites', {
      name: 'residual-writes',
      fifo: false,
      ...(guardBatchingWindow ? { maxBatchingWindow: guardBatchingWindow } : {}),
      function: {
        ...common,
        entry: 'functions/guard/handler.ts',
        serviceName: 'reseal-guard',
        description: 'Stale-state guard: accepts residual writes into seal-requests or rejects them',
        environment: {
          ...shared,
          GUARD_KEY_ID: guardKey.key.keyArn,
          SEAL_QUEUE_URL: sealer.queue.queueUrl,
          MAX_RECEIPT_AGE_SECONDS: String(props.maxReceiptAgeSeconds ?? DEFAULT_MAX_RECEIPT_AGE_SECONDS),
        },
        timeout: Duration.seconds(30),
      },
    });
    store.grantRead(guard.consumer.fn);
    store.grantRecordRejections(guard.consumer.fn);
    guardKey.grantSign(guard.consumer.fn, 'Guard');
    sealer.queue.grantSendMessages(guard.consumer.fn);
    bus.grantPutEventsTo(guard.consumer.fn);

    // The sealer re-runs the guard before sealing (functions/sealer/seal-request-check.ts) with the
    // guard's receipt-age limit, read from the guard's environment so the two cannot drift apart.
    const maxReceiptAge = guard.consumer.environment.MAX_RECEIPT_AGE_SECONDS;
    if (maxReceiptAge === undefined) throw new Error('the guard has no MAX_RECEIPT_AGE_SECONDS');
    sealer.consumer.fn.addEnvironment('MAX_RECEIPT_AGE_SECONDS', maxReceiptAge);
    // Only the guard may put work on seal-requests: an explicit deny for every other principal,
    // which no identity policy elsewhere in the account can override (docs/infrastructure.md).
    sealer.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OnlyTheGuardMaySendSealRequests',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [sealer.queue.queueArn],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': guard.consumer.role.roleArn } },
      }),
    );

    const triage = new ResealFunction(this, 'Triage', {
      ...common,
      entry: 'functions/triage/handler.ts',
      serviceName: 'reseal-triage',
      description: 'Differential seal triage on RecallRequested',
      environment: { ...shared, LOG_KEY_ID: logKey.key.keyArn },
      timeout: Duration.seconds(60),
    });
    // Triage proves records against signed checkpoints: it reads and checks signatures, no MAC calls.
    store.grantRead(triage.fn);
    logKey.grantPublicKey(triage.fn, 'Triage');
    store.grantWriteTriageReports(triage.fn);
    bus.grantPutEventsTo(triage.fn);

    // The remote MCP server (docs/mcp.md, "Remote MCP"): it reads the table and verifies MACs and
    // signatures, sends the writes its callers signed to residual-writes and puts RecallRequested on
    // the bus. It writes no item and signs nothing: it holds no writer key and no signing grant.
    // The remote MCP's freshness policy: the one given, else the witness's (docs/mcp.md, "Freshness").
    const mcpPolicy = props.mcpPolicy ?? props.witness;
    const mcpFreshness = {
      FRESHNESS_POLICY: mcpPolicy?.policy ?? '',
      FRESHNESS_MAX_AGE_SECONDS: String(mcpPolicy?.maxAgeSeconds ?? DEFAULT_WITNESS_MAX_AGE_SECONDS),
      INTEGRATION_INTERVAL_SECONDS: String(interval),
    };
    remoteFreshnessPolicy(
      {
        policy: mcpFreshness.FRESHNESS_POLICY,
        maxAgeSeconds: mcpFreshness.FRESHNESS_MAX_AGE_SECONDS,
        intervalSeconds: mcpFreshness.INTEGRATION_INTERVAL_SECONDS,
      },
      logNameOf(this.stackName),
    );
    const mcp = new McpApi(this, 'RemoteMcp', {
      ...common,
      environment: {
        ...shared,
        RESIDUAL_WRITES_QUEUE_URL: guard.queue.queueUrl,
        MAC_KEY_ID: store.macKey.keyArn,
        LOG_KEY_ID: logKey.key.keyArn,
        GUARD_KEY_ID: guardKey.key.keyArn,
        SEALER_KEY_ID: sealerKey.key.keyArn,
        ...mcpFreshness,
      },
    });
    store.grantVerify(mcp.function.fn);
    logKey.grantPublicKey(mcp.function.fn, 'RemoteMcp');
    guardKey.grantPublicKey(mcp.function.fn, 'RemoteMcp');
    sealerKey.grantPublicKey(mcp.function.fn, 'RemoteMcp');
    bus.grantPutEventsTo(mcp.function.fn);

    // Tenancy (docs/authorship.md, "Tenancy"): without tenants, one tenant and the stack's own
    // queue; with them, a queue per tenant and none through the stack's own.
    const tenantQueues =
      tenants === undefined
        ? undefined
        : new TenantQueues(this, 'Tenants', {
            tenants,
            guard: guard.consumer,
            guardTimeout: Duration.seconds(30),
            ...(guardBatchingWindow ? { guardBatchingWindow } : {}),
            relay: mcp.function.role,
            removalPolicy,
          });
    guard.consumer.fn.addEnvironment('TENANT_QUEUES', tenantQueues?.tenantQueuesJson() ?? '');
    // A recall names its tenant by its source, which IAM conditions (docs/triage.md, "Tenants").
    triage.fn.addEnvironment('TENANT_IDS', tenantQueues?.tenantIdsJson() ?? '');
    const triageRule = new TriageRule(this, 'TriageRule', {
      bus,
      target: triage.fn,
      ...(tenantQueues ? { sources: tenantQueues.recallSources() } : {}),
    });
    // Tenant principals read their own partitions and the shared ones only (docs/authorship.md, "Tenancy", reads).
    tenantQueues?.restrictTableReads(store.table);
    // The bus policy (docs/infrastructure.md, "Permissions"): only the role that publishes a
    // detail-type may put it, so nobody else with events:PutEvents can announce a made-up head
    // that clients would then check their lineages against; with tenants, the recall statements too.
    const busArn = this.formatArn({
      service: 'events',
      resource: 'event-bus',
      resourceName: eventBusNameOf(this.stackName),
    });
    (bus.node.defaultChild as events.CfnEventBus).policy = new iam.PolicyDocument({
      statements: [
        ...(tenantQueues?.recallBusStatements(busArn) ?? []),
        ...publisherBusStatements(busArn, {
          [DetailType.ResidualSealed]: [sealer.consumer.role],
          // Both stages refuse writes: the guard before sealing, the sealer when it re-checks.
          [DetailType.ResidualRejected]: [guard.consumer.role, sealer.consumer.role],
          [DetailType.TriageCompleted]: [triage.role],
        }),
      ],
    });
    mcp.function.fn.addEnvironment('TENANTS', tenantQueues?.relayTenantsJson() ?? '');
    if (tenantQueues === undefined) {
      guard.queue.grantSendMessages(mcp.function.fn);
    } else {
      // A write through a queue of no tenant would name no tenant: nobody may send one.
      guard.queue.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'NoWritesOutsideATenant',
          effect: iam.Effect.DENY,
          principals: [new iam.AnyPrincipal()],
          actions: ['sqs:SendMessage'],
          resources: [guard.queue.queueArn],
        }),
      );
      const json = (entries: [string, string][]) => this.toJsonString(Object.fromEntries(entries));
      new CfnOutput(this, 'TenantQueueUrls', {
        value: json(tenantQueues.tenants.map((t) => [t.tenant.id, t.queue.queueUrl])),
        description: "Each tenant's residual-writes queue URL, by tenant id (JSON)",
      });
      new CfnOutput(this, 'TenantWriterKeyArns', {
        value: json(tenantQueues.tenants.map((t) => [t.tenant.id, t.writerKey.keyArn])),
        description: "Each tenant's KMS Ed25519 writer key, by tenant id (JSON)",
      });
    }

    // Output names from client/stack-outputs.ts, where the code that reads them defines them: the
    // type makes this table name every output, and no other.
    const outputs: Record<keyof StackOutputs, [string, string]> = {
      TableName: [store.table.tableName, 'Lineage table'],
      ResidualWritesQueueUrl: [guard.queue.queueUrl, 'Agents send residual writes here'],
      ResidualWritesQueueArn: [guard.queue.queueArn, 'residual-writes queue ARN'],
      ResidualWritesDlqUrl: [guard.deadLetterQueue.queueUrl, 'residual-writes dead-letter queue'],
      SealRequestsQueueUrl: [sealer.queue.queueUrl, 'FIFO seal-requests queue (group = lineage id)'],
      SealRequestsQueueArn: [sealer.queue.queueArn, 'seal-requests queue ARN'],
      SealRequestsDlqUrl: [sealer.deadLetterQueue.queueUrl, 'seal-requests dead-letter queue'],
      TriageDlqUrl: [triageRule.deadLetterQueue.queueUrl, 'RecallRequested events that could not be delivered'],
      EventBusName: [bus.eventBusName, 'Bus for RecallRequested / ResidualSealed / ResidualRejected / TriageCompleted'],
      EventBusArn: [bus.eventBusArn, 'Event bus ARN'],
      MacKeyArn: [store.macKey.keyArn, 'KMS HMAC_256 key (MAC_KEY_ID)'],
      MacKeyAlias: [store.macKeyAlias.aliasName, 'Alias of the MAC key'],
      LogKeyArn: [logKey.key.keyArn, 'KMS Ed25519 key of checkpoints (kms:GetPublicKey)'],
      GuardKeyArn: [guardKey.key.keyArn, 'KMS Ed25519 key of guard refusals (kms:GetPublicKey)'],
      SealerKeyArn: [sealerKey.key.keyArn, 'KMS Ed25519 key of sealer refusals (kms:GetPublicKey)'],
      LogName: [
        logNameOf(this.stackName),
        'Signed-note key name of the log; checkpoint origins are <LogName>/<lineageId>',
      ],
      GuardFunctionName: [guard.consumer.fn.functionName, 'Stale-state guard function'],
      SealerFunctionName: [sealer.consumer.fn.functionName, 'Sealer function'],
      TriageFunctionName: [triage.fn.functionName, 'Triage function'],
      McpUrl: [mcp.url, 'Remote MCP endpoint (POST, SigV4 for execute-api; docs/mcp.md)'],
      McpApiId: [mcp.api.apiId, 'HTTP API of the remote MCP server'],
      McpFunctionName: [mcp.function.fn.functionName, 'Remote MCP function'],
      IntegrationIntervalSeconds: [
        String(interval),
        'Integration interval, seconds; clients state the freshness window as max age + this',
      ],
    };
    for (const [name, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value, description });
    }
  }
}
