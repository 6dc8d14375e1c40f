/**
 * Lineages sealed on the deployed stack's table with its KMS keys, by the real sealer service in
 * process (as the sealer Lambda runs it), so integration tests need not wait for the queues.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import { expect } from 'vitest';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { KmsNoticeKey } from '../../adapters/kms-notice-key';
import type { StackOutputs } from '../../client/stack-outputs';
import { type SealerDeps, SealerService } from '../../functions/sealer/sealer-service';
import { evaluateWrite } from '../../shared/guard/evaluate-write';
import { sealerKeyName } from '../../shared/log/log-names';
import { HeadLayout } from '../../shared/ports/head-layout';
import type { SealedDependencyManifest } from '../../shared/triage/sealed-dependency-manifest';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { FakeMetrics, FakePublisher, fakeLogger } from './factories';
import { validWriteRequest } from './guard-factories';
import { signWriteSync, TEST_WRITER } from './writer-factories';

/** The deployed stack and SDK clients on its endpoint. */
export interface SealingSetup {
  readonly stack: StackOutputs;
  readonly dynamodb: DynamoDBClient;
  readonly kms: Pick<KMSClient, 'send'>;
}

/**
 * The deployed stack's notice key, by its alias `alias/<stackName>-notice` (the stack name is the
 * log name without `reseal/`): the key the deployed sealer MACs notices under and the deployed
 * integrator unwraps them with (docs/deployment-log.md, "Sealed-run notices").
 */
export function stackNoticeKey(setup: SealingSetup): KmsNoticeKey {
  const stackName = setup.stack.LogName.replace(/^reseal\//, '');
  return new KmsNoticeKey(setup.kms, `alias/${stackName}-notice`, setup.stack.LogName);
}

/**
 * A sealer service on the deployed table and keys. Each call makes a new one: a sealer after a
 * cold start, with no memory of the checkpoints it signed.
 *
 * @param options.clock - the sealer's clock (ms); refusals are timed by the messages' `sentAtMs`
 * @param options.signer - the log key's signer (default: the stack's KMS log key)
 * @param options.notifier - where its sealed-run notices go (none sent without one), MAC'd under the stack's notice key
 * @param options.index - the index floor it checks each run against (docs/sealing.md, "The index floor")
 * @param options.signLineageCheckpoints - also sign a lineage checkpoint per run (heads from before step 3; default: the environment's, else `false`)
 * @param options.headKeyMacs - MAC heads under the stack's notice key, as the deployed sealer does
 *   (docs/verifiable-log.md, "Appending"; always with a notifier); else a KMS head-state MAC each
 */
export function coldSealer(
  setup: SealingSetup,
  options: Pick<SealerDeps, 'notifier' | 'index' | 'signLineageCheckpoints'> & {
    readonly clock?: () => number;
    readonly signer?: SealerDeps['signer'];
    /** The head item it writes (docs/sealing.md, "Migration"); default the deployed sealer's (`small`). */
    readonly headLayout?: HeadLayout;
    readonly headKeyMacs?: boolean;
  } = {},
): SealerService {
  const sign = options.signLineageCheckpoints ?? process.env.RESEAL_TEST_SIGN_LINEAGE_CHECKPOINTS === 'true';
  // A signing sealer writes the compatible head (a small head carries no signed checkpoint), as the stack deploys it.
  const headLayout = options.headLayout ?? (sign ? HeadLayout.COMPATIBLE : undefined);
  return new SealerService({
    store: new DynamoDBLineageStore(setup.dynamodb, setup.stack.TableName, headLayout),
    publisher: new FakePublisher(),
    anchor: new KMSMacAnchor(setup.kms, setup.stack.MacKeyArn),
    signer: options.signer ?? new KMSNoteSigner(setup.kms, setup.stack.LogKeyArn, setup.stack.LogName),
    refusalSigner: new KMSNoteSigner(setup.kms, setup.stack.SealerKeyArn, sealerKeyName(setup.stack.LogName)),
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: options.clock ?? Date.now,
    ...(options.notifier ? { notifier: options.notifier } : {}),
    ...(options.notifier || options.headKeyMacs ? { noticeKey: stackNoticeKey(setup) } : {}),
    ...(options.index ? { index: options.index } : {}),
    // By default as the deployed sealer runs (no lineage checkpoint); `signLineageCheckpoints` or
    // RESEAL_TEST_SIGN_LINEAGE_CHECKPOINTS=true: as it ran before step 3 (docs/deployment-log.md,
    // "What changes for the sealer"), heads a reader still meets after the migration.
    signLineageCheckpoints: sign,
  });
}

/**
 * A write the guard accepts at `nowMs` (`validWriteRequest` with `manifest`, `overrides` applied),
 * signed by the test writer key after the overrides (a `writer` override is kept as given).
 */
export function acceptedWrite(
  lineageId: string,
  residualId: string,
  manifest: SealedDependencyManifest,
  nowMs: number,
  overrides: Partial<ResidualWriteRequest> = {},
): ResidualWriteRequest {
  const { writer, ...fields } = overrides;
  const request = { ...validWriteRequest({ lineageId, residualId, manifest }, { nowMs }), ...fields };
  return writer ? { ...request, writer } : signWriteSync(request, TEST_WRITER, nowMs);
}

/**
 * Hands `writes` to `sealer` as one FIFO group (as the guard would send them, accepted at
 * `nowMs`), and returns each write's outcome: its kind, and the reason of a refusal
 * (`SEALED`, `REJECTED RESIDUAL_ID_REUSED`, `CONFLICT LINEAGE_INCONSISTENT`, …).
 */
export async function sealGroup(
  sealer: SealerService,
  writes: readonly ResidualWriteRequest[],
  nowMs: number = Date.now(),
): Promise<string[]> {
  const group = writes.map((request, i) => {
    const verdict = evaluateWrite(request, { nowMs, maxReceiptAgeSeconds: 900 });
    expect(verdict.isSafe, `the guard accepts ${request.residualId}`).toBe(true);
    return {
      messageId: `m-${request.residualId}-${nowMs}-${i}`,
      body: JSON.stringify({ formatVersion: 1, request, verdict, acceptedAtMs: nowMs }),
      sentAtMs: nowMs,
    };
  });
  return (await sealer.handleGroup(group)).map((outcome) =>
    'reason' in outcome ? `${outcome.kind} ${outcome.reason}` : outcome.kind,
  );
}
