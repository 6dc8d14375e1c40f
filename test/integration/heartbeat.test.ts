import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { DeploymentHeartbeat } from '../../functions/integrator/heartbeat';
import { IntegratorService } from '../../functions/integrator/integrator-service';
import type { IntegratorWitness } from '../../functions/integrator/witness-submission';
import { WitnessService } from '../../functions/witness/witness-service';
import { formatVerifierKey } from '../../shared/log/note-key';
import { parseSignedNote } from '../../shared/log/signed-note';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { buildManifest } from '../../shared/triage/build-manifest';
import { verifyCosignature } from '../../shared/witness/cosignature';
import { cosignerKey, formatCosignerKey } from '../../shared/witness/cosigner-key';
import { checkPolicy } from '../../shared/witness/policy-check';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { parseTrustedLogs } from '../../shared/witness/trusted-logs';
import { deployedStack } from '../helpers/deployed-stack';
import { acceptedWrite, coldSealer, sealGroup, stackNoticeKey } from '../helpers/emulator-lineages';
import { FakeMetrics, fakeLogger } from '../helpers/factories';
import { InMemoryWitnessStore } from '../helpers/in-memory-witness-store';
import { createScratchTable } from '../helpers/scratch-table';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { until } from '../helpers/until';
import { testWitnessSigner } from '../helpers/witness-factories';
import { testLineageId } from '../helpers/writer-factories';

// The integrator's heartbeat (docs/deployment-log.md, "Freshness window and interval") on the
// emulator: the deployed stack's KMS log key signs, the deployment log lives in a DynamoDB table of
// its own on the emulator (the stack's table is shared with the deployed, unwitnessed integrator,
// which would overwrite `published`), the sealer, integrator and heartbeat run in process (the
// heartbeat driven directly, not by the schedule: the test stack has no witness, so no schedule;
// `npm run bench:freshness` watches the deployed schedule), and the witness is the real
// WitnessService in process.
const { stack, dynamodb, kms } = deployedStack();
const tableName = `reseal-heartbeat-${randomUUID().slice(0, 8)}`;
const MAX_AGE = 180;

/** A signer that counts its signatures. */
function counting(signer: NoteSigner): NoteSigner & { signs: number } {
  const counted = {
    keyName: signer.keyName,
    publicKey: () => signer.publicKey(),
    signs: 0,
    sign: async (message: Uint8Array) => {
      counted.signs += 1;
      return signer.sign(message);
    },
  };
  return counted;
}

beforeAll(async () => {
  await createScratchTable(dynamodb, tableName, ['pk', 'sk']);
});

afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
});

describe('the integrator heartbeat on the emulator (docs/deployment-log.md, "Freshness window and interval")', () => {
  it("an idle log's published note gets a newer cosignature with no write and no log-key Sign", async () => {
    const logSigner = counting(new KMSNoteSigner(kms, stack.LogKeyArn, stack.LogName));
    const logKey = await new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName).get();
    const witnessSigner = counting(testWitnessSigner());
    const witnessService = new WitnessService({
      store: new InMemoryWitnessStore(),
      signer: witnessSigner,
      trusted: parseTrustedLogs(formatVerifierKey(logKey)),
      logger: fakeLogger(),
      clock: Date.now,
    });
    const witnessKey = cosignerKey(witnessSigner.keyName, await witnessSigner.publicKey());
    const policy = parsePolicy(
      `log ${formatVerifierKey(logKey)}\nwitness w1 ${formatCosignerKey(witnessKey)}\nquorum w1\n`,
    );
    const witness: IntegratorWitness = {
      client: { addCheckpoint: async (body) => witnessService.addCheckpoint(body) },
      policy,
      maxAgeSeconds: MAX_AGE,
    };
    const store = new DynamoDBLineageStore(dynamodb, tableName);
    const deployment = new DynamoDBDeploymentLogStore(dynamodb, tableName);
    const notices = new SealedRunNotices();
    // The stack's keys over this file's own table.
    const sealer = coldSealer(
      { stack: { ...stack, TableName: tableName }, dynamodb, kms },
      { signer: logSigner, notifier: notices },
    );
    const manifest = buildManifest({ env: { ARCH: 'arm64' }, structuralKeys: ['ARCH'], claimDependencyMap: {} });
    const lineageId = testLineageId(`lin-heartbeat-${randomUUID()}`);
    const now = Date.now();
    expect(await sealGroup(sealer, [acceptedWrite(lineageId, 'r-0', manifest, now)], now)).toEqual(['SEALED']);
    const integrated = await new IntegratorService({
      lineages: store,
      deployment,
      index: new DynamoDBIndexNodeStore(dynamodb, tableName),
      signer: logSigner,
      anchor: new KMSMacAnchor(kms, stack.MacKeyArn),
      // The sealer MACs its heads and notices under the stack's notice key, as deployed.
      noticeKey: stackNoticeKey({ stack, dynamodb, kms }),
      witness,
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: Date.now,
    }).integrate(notices.take());
    expect(integrated.witnessStatus).toBe(200);
    const first = await deployment.readHead();
    const cosignedAt = (note: string | null | undefined) => {
      const { text, signatures } = parseSignedNote(note ?? '');
      return Math.max(...signatures.map((s) => verifyCosignature(text, s, witnessKey) ?? -1));
    };
    const t0 = cosignedAt(first?.published);
    expect(t0).toBeGreaterThan(0);
    const signs = { log: logSigner.signs, witness: witnessSigner.signs };

    // A threshold of 1 s, so the test waits seconds, not a third of the maximum age; the decision is the same.
    const heartbeat = new DeploymentHeartbeat({
      deployment,
      logKey: logSigner,
      witness,
      thresholdSeconds: 1,
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: Date.now,
    });
    const report = await until(
      'the heartbeat to cosign the idle head anew',
      async () => {
        const beat = await heartbeat.beat();
        return beat.kind === 'SUBMITTED' ? beat : undefined;
      },
      { timeoutMs: 120_000, pollIntervalMs: 500 },
    );
    expect(report).toMatchObject({ reason: 'AGED', witnessStatus: 200, size: first?.size });
    const after = await deployment.readHead();
    expect(after?.size).toBe(first?.size);
    expect(after?.checkpoint).toBe(first?.checkpoint);
    expect(parseSignedNote(after?.published ?? '').text).toBe(parseSignedNote(first?.checkpoint ?? '').text);
    expect(cosignedAt(after?.published)).toBeGreaterThan(t0);
    expect(
      checkPolicy({
        note: after?.published ?? '',
        policy,
        maxAgeSeconds: MAX_AGE,
        nowSeconds: Math.floor(Date.now() / 1000),
      }).kind,
    ).toBe('ACCEPTED');
    expect(logSigner.signs).toBe(signs.log);
    expect(witnessSigner.signs).toBe(signs.witness + 1);
  });
});
