import { defaultPolicyText } from '../../../client/freshness-policy';
import { writtenByOf } from '../../../client/written-by';
import { forgeClaim } from '../../../scripts/demo/aws-backend';
import type { DemoBackend, DemoRecall, RejectionFound } from '../../../scripts/demo/backend';
import { admitWrite } from '../../../shared/authorship/admit-write';
import type { LineagePolicy } from '../../../shared/authorship/lineage-policy';
import { evaluateWrite } from '../../../shared/guard/evaluate-write';
import { DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../../../shared/guard/policy';
import { checkpointOrigin } from '../../../shared/log/checkpoint-origin';
import { MemoryMerkleTree } from '../../../shared/log/memory-tree';
import { proveRecord } from '../../../shared/log/record-proof';
import { signCheckpoint } from '../../../shared/log/sign-checkpoint';
import { lineageHeadOf } from '../../../shared/seal/lineage-head';
import { LocalHmacAnchor } from '../../../shared/seal/local-hmac-anchor';
import { sealRecord } from '../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { verifyChain } from '../../../shared/seal/verify-chain';
import { isolateDelta } from '../../../shared/triage/isolate-delta';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { TEST_LOG_KEY, TEST_LOG_NAME, testLogSigner } from '../../helpers/pipeline-keys';

/** The signed checkpoint of a chain and the inclusion proof of record `seq` (default: the last), built in memory. */
async function proofOf(lineageId: string, records: readonly SealedRecord[], seq = records.length - 1) {
  const tree = new MemoryMerkleTree();
  for (const record of records) tree.append(Buffer.from(record.recordHash, 'hex'));
  const checkpoint = await signCheckpoint(
    { origin: checkpointOrigin(TEST_LOG_NAME, lineageId), size: tree.size, rootHash: tree.root() },
    testLogSigner(),
  );
  const inclusion = await proveRecord(seq, tree.size, tree.nodes);
  const target = records[seq] as SealedRecord;
  return { checkpoint, seq, recordHash: target.recordHash, inclusion, consistency: null };
}

/**
 * The pipeline in one process, from the core alone (guard → seal → verify + triage), with records
 * stored as JSON text like the table keeps them. Lets `runDemo`'s orchestration be unit-tested
 * without an emulator; the integration test runs it against the deployed stack.
 */
export function inProcessBackend(nowMs: () => number = Date.now): DemoBackend & { writes: number; recalls: number } {
  const anchor = new LocalHmacAnchor({ keyId: 'demo-test-key', key: new Uint8Array(32).map((_, i) => i + 1) });
  const chains = new Map<string, string[]>();
  const rejections = new Map<string, RejectionFound & { signed: boolean }>();
  const policies = new Map<string, LineagePolicy>();
  const chain = (lineageId: string) => chains.get(lineageId) ?? [];
  const latest = (lineageId: string) => {
    const texts = chain(lineageId);
    const last = texts[texts.length - 1];
    return last === undefined ? null : (JSON.parse(last) as SealedRecord);
  };
  const admission = (request: ResidualWriteRequest) => {
    const last = latest(request.lineageId);
    return admitWrite(
      {
        lineageId: request.lineageId,
        seq: last ? last.header.monotonicSequenceNumber + 1 : 0,
        inForce: policies.get(request.lineageId) ?? null,
        legacyTip: false,
      },
      { publicKey: request.writer.publicKey, policy: request.policy ?? null },
    );
  };
  const backend = {
    endpoint: 'in-process',
    writes: 0,
    recalls: 0,
    /** As the client sends it: a write it can see is not admitted is refused before sending. */
    async publishWrite(request: ResidualWriteRequest) {
      if ('refused' in admission(request)) throw new Error(`client: key ${request.writer.keyId} is not admitted`);
      await backend.publishUnchecked(request);
    },
    /** As the queue takes it: guard, then the sealer's admission (refused unsigned), then the seal (format 2). */
    async publishUnchecked(request: ResidualWriteRequest) {
      backend.writes += 1;
      const verdict = evaluateWrite(request, { nowMs: nowMs(), maxReceiptAgeSeconds: DEFAULT_MAX_RECEIPT_AGE_SECONDS });
      if (!verdict.isSafe) {
        rejections.set(request.residualId, {
          stage: 'GUARD',
          reason: 'STALE_STATE',
          residualId: request.residualId,
          rejectedVariables: verdict.rejectedVariables,
          signed: true,
        });
        return;
      }
      if ('refused' in admission(request)) {
        const refusal = { stage: 'SEALER', reason: 'WRITER_NOT_ADMITTED', residualId: request.residualId };
        rejections.set(request.residualId, { ...refusal, rejectedVariables: [], signed: false });
        return;
      }
      const last = latest(request.lineageId);
      const sealed = await sealRecord(
        {
          lineageId: request.lineageId,
          residualId: request.residualId,
          sessionId: request.sessionId,
          payload: request.payload,
          generationEpoch: request.generationEpoch,
          authority: request.authority,
          manifest: request.manifest,
          verdictDigest: verdict.verdictDigest,
          variablesUsed: request.variablesUsed,
          ...(request.supersedes ? { supersedes: request.supersedes } : {}),
          writer: { ...request.writer, senderId: null },
          boundary: request.boundary,
          declaredImmutableConstants: request.declaredImmutableConstants,
          policy: request.policy ?? null,
        },
        last ? { ...lineageHeadOf(last), policyDigest: last.header.policyDigest ?? null } : null,
        anchor,
        nowMs(),
      );
      chains.set(request.lineageId, [...chain(request.lineageId), JSON.stringify(sealed)]);
      if (request.policy) policies.set(request.lineageId, request.policy);
    },
    async readRefusal(_lineageId: string, residualId: string) {
      const found = rejections.get(residualId);
      return found ? { stage: found.stage, reason: found.reason, signatureVerified: found.signed } : null;
    },
    async writers(lineageId: string) {
      const records = chain(lineageId).map((t) => JSON.parse(t) as unknown);
      const verification = await verifyChain(records, { lineageId, anchor });
      return {
        verdict: verification.verdict,
        records: verification.records.map((r) => ({ seq: r.seq, writtenBy: writtenByOf(r) })),
      };
    },
    async readHead(lineageId: string) {
      const last = latest(lineageId);
      return last ? lineageHeadOf(last) : null;
    },
    async findRejection(_lineageId: string, residualId: string) {
      return rejections.get(residualId) ?? null;
    },
    async recall(
      lineageId: string,
      currentEnv: Record<string, string>,
      checkpoint?: { seq: number; recordHash: string },
    ) {
      backend.recalls += 1;
      const records = chain(lineageId).map((t) => JSON.parse(t) as unknown);
      const verification = await verifyChain(records, { lineageId, anchor, ...(checkpoint ? { checkpoint } : {}) });
      const target = records[records.length - 1] as SealedRecord;
      const seq = target.header.monotonicSequenceNumber;
      if (verification.verdict !== 'VERIFIED_INTACT') {
        return {
          end: 'NOT_INTACT',
          verdict: verification.verdict,
          reason: verification.firstFailure?.reason ?? '',
          delta: null,
          seq,
          proven: false,
        } satisfies DemoRecall;
      }
      return {
        end: 'TRIAGED',
        verdict: verification.verdict,
        reason: 'record verified',
        delta: isolateDelta(target.manifest, currentEnv),
        seq,
        proven: true,
      } satisfies DemoRecall;
    },
    async untilIntegrated() {
      // No deployment log in process: a sealed record is recalled from its signed checkpoint.
    },
    async receipt(lineageId: string, seq: number) {
      const records = chain(lineageId).map((t) => JSON.parse(t) as SealedRecord);
      const proof = await proofOf(lineageId, records, seq);
      return {
        receipt: {
          formatVersion: 1 as const,
          type: 'reseal-receipt' as const,
          lineageId,
          record: records[seq],
          inclusion: proof.inclusion,
          checkpoint: proof.checkpoint,
        },
        // The in-process stack keeps no deployment log: a format-1 receipt, checked with the policy's log key.
        policy: defaultPolicyText(TEST_LOG_KEY),
      };
    },
    async tamperWithPayload(lineageId: string, seq: number) {
      const texts = chain(lineageId);
      const record = JSON.parse(texts[seq] as string);
      const edit = forgeClaim(record);
      texts[seq] = JSON.stringify(record);
      return edit;
    },
  };
  return backend;
}
