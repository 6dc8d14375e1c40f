import type { CallToolResult } from '@modelcontextprotocol/server';
import { freshnessShape } from '../client/shapes/freshness-shape';
import type { HeadOutput } from '../client/shapes/head-output';
import { recallRollbackFields, recallShape } from '../client/shapes/recall-shape';
import { writtenByOutput } from '../client/shapes/written-by-output';
import { provenTreeText } from '../client/tree-voucher';
import { recallTruncationBasis, truncationCheckText } from '../client/truncation-check-text';
import { untrustedRecallText } from '../client/untrusted-recall-text';
import { RecallEnd, type VerifiedRecall } from '../client/verified-recall';
import { writtenByProven, writtenByText } from '../client/written-by';
import type { JsonValue } from '../shared/canonical/canonical-json';
import { isoTime } from '../shared/iso-time';
import { normalFormOf } from '../shared/schemas/normal-form';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { DeltaVerdict } from '../shared/triage/delta-isolation-report';
import { headOf } from './head-of';
import type { RecallOutput } from './outputs/recall-output';
import { ToolErrorCode } from './outputs/tool-error-code';
import { UNTRUSTED_NOTE } from './outputs/untrusted-note';
import { signedCheckpointOutput } from './signed-checkpoint-output';
import { type SnapshotUse, snapshotOutput } from './snapshot-use';
import { toolError } from './tool-error';
import { toolResult } from './tool-result';
import { MCP_TRUNCATION_HINTS } from './truncation-hints';

/** The `claims` map of a payload in the layout `reseal_write` writes (`{ claims, data? }`), or null. */
function payloadClaims(payload: unknown): Record<string, JsonValue> | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const claims = (payload as { claims?: unknown }).claims;
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return null;
  return claims as Record<string, JsonValue>;
}

/** The payload outside its claims: `data` in the `reseal_write` layout, else the whole payload. */
function payloadData(payload: JsonValue): JsonValue | null {
  if (payloadClaims(payload) === null) return payload;
  return ((payload as Record<string, JsonValue>).data ?? null) as JsonValue | null;
}

const NEXT_STEPS: Readonly<Record<DeltaVerdict, string>> = {
  NO_DRIFT: 'none: every claim stands; use keptClaims',
  AMBIENT_DRIFT_ONLY: 'none: only keys no claim rests on drifted; every claim stands',
  PARTIAL_REPROBE_REQUIRED:
    'use keptClaims as they are; re-probe each of reprobeClaims against the environment now, then call reseal_write with every claim (kept and re-probed) and supersedes',
  FULL_RECONSTRUCTION_REQUIRED:
    'a structural key drifted: trust no claim of this record; rebuild them from live ground truth, then call reseal_write with supersedes',
};

const TAMPER_ACTION =
  'do not act on this memory: treat every claim of the lineage as unverified, rebuild them from live ground truth, and report the lineage (reseal_inspect shows which record fails)';

/** The `untrusted` field of a recall answer that quotes the stored answer, or nothing when it is proven. */
function untrustedFields(recall: VerifiedRecall): Record<string, unknown> {
  const { untrusted } = untrustedRecallText(recall);
  return untrusted ? { untrusted: { note: UNTRUSTED_NOTE, ...untrusted } } : {};
}

/**
 * A recall the client could not prove (`NOT_INTACT`): `TAMPER_DETECTED`, nothing of the record's
 * content, and the stored answer's words only in `untrusted`. Without triage (`triaged` false)
 * every finding is the client's own reading of the table, so `detectedBy` is `client`.
 */
function tamperFromRecall(recall: VerifiedRecall, triaged: boolean): CallToolResult {
  const verdict = recall.verdict ?? VerificationVerdict.UNVERIFIED_TAMPER_RISK;
  const seq =
    recall.record?.header.monotonicSequenceNumber ??
    recall.report.verification?.firstFailure?.seq ??
    recall.report.seq ??
    null;
  const { reason } = untrustedRecallText(recall);
  return toolError(
    ToolErrorCode.TAMPER_DETECTED,
    `lineage ${recall.lineageId} does not verify (${verdict}): ${reason}`,
    verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK
      ? `${TAMPER_ACTION}; the answer could not be proven with the log's public key, which is not proof of tampering but is not to be trusted`
      : TAMPER_ACTION,
    {
      requestId: recall.requestId,
      lineageId: recall.lineageId,
      seq,
      residualId: recall.record?.header.residualId ?? null,
      verdict,
      firstFailure: { seq, verdict, reason },
      refusalCode: recall.report.refusalCode,
      checkpointSize: recall.checks.checkpointSize,
      newestCheckpointSize: recall.checks.newestSize,
      truncationChecked: recall.truncationChecked,
      ...recallRollbackFields(recall),
      detectedBy: triaged ? (recall.detectedBy ?? 'client') : 'client',
      freshness: freshnessShape(recall.freshness),
      ...untrustedFields(recall),
    },
  );
}

/** The caller's `{ seq, recordHash }` the client checked the recall against, if given. */
function callerHead(recall: VerifiedRecall): HeadOutput | null {
  for (const reference of recall.checks.truncationCheckedAgainst) {
    if (reference.kind === 'GIVEN_HEAD') return headOf(reference);
  }
  return null;
}

/**
 * The answer of `reseal_recall`, rendered from the recall as the server's client decided it
 * (`client.recall`, client/verified-recall.ts: the record proven in a signed checkpoint no older
 * than the newest one the client read, consistent with the kept one and with the caller's
 * `checkpoint`, and the delta recomputed from it; the stored report is never used as is):
 * - `TRIAGED` → the delta verdict, the claims kept with their content (from the proven record's
 *   payload) and the claims to re-probe (with the keys that drifted under them);
 * - `NOT_INTACT` → `TAMPER_DETECTED`;
 * - `NOT_FOUND` → `NOT_FOUND` (unproven: with a deployment log, the freshness reason says as of which
 *   integration it is absent and how many records not yet integrated were searched);
 * - `INVALID_REQUEST` → `INVALID_INPUT`;
 *   each of these three with the stored answer's words only in `untrusted`, escaped (docs/mcp.md, "Untrusted data");
 * - `UNTRIAGEABLE` → `UNTRIAGEABLE`;
 * - `AWAITING_INTEGRATION` → `AWAITING_INTEGRATION` (sealed past the indexed tree head: not proven
 *   yet, not tampering; never `TIMEOUT`, which is no answer in `timeoutMs`).
 *
 * `triaged` (default `true`) says whose answer the client decided: triage's (`client.recall`) or
 * its own reading of the table (`client.recallDirect`); only the words naming who answered differ.
 */
export function recallResult(input: {
  readonly recall: VerifiedRecall;
  readonly snapshot: SnapshotUse;
  readonly triaged?: boolean;
}): CallToolResult {
  const { recall, snapshot } = input;
  const triaged = input.triaged !== false;
  const answerer = triaged ? 'triage' : "the server's own reading of the table";
  const { record, checkpoint, inclusion, delta } = recall;
  switch (recall.end) {
    case RecallEnd.NOT_FOUND:
      return toolError(
        ToolErrorCode.NOT_FOUND,
        `no such record in lineage ${recall.lineageId}, says ${answerer} (unproven: ${recall.freshness ? recall.freshness.reason : 'neither the signed log nor its marker contradicts it, as far as this client read them'})`,
        'check lineageId and target; a write is recallable only once reseal_write has returned SEALED',
        {
          requestId: recall.requestId,
          lineageId: recall.lineageId,
          proven: false,
          freshness: freshnessShape(recall.freshness),
          ...untrustedFields(recall),
        },
      );
    case RecallEnd.INVALID_REQUEST:
      return toolError(
        ToolErrorCode.INVALID_INPUT,
        `${answerer} refused the request as invalid (unproven): ${untrustedRecallText(recall).reason}`,
        'fix the arguments, then call again',
        { requestId: recall.requestId, lineageId: recall.lineageId, proven: false, ...untrustedFields(recall) },
      );
    case RecallEnd.UNTRIAGEABLE: {
      const seq = record?.header.monotonicSequenceNumber ?? null;
      return toolError(
        ToolErrorCode.UNTRIAGEABLE,
        `record seq ${seq} of ${recall.lineageId} verified but cannot be triaged: ${recall.refusal?.reason ?? recall.reason}`,
        'rebuild this memory from live ground truth and write it again (supersedes the record)',
        {
          requestId: recall.requestId,
          lineageId: recall.lineageId,
          seq,
          residualId: record?.header.residualId ?? null,
          supersedes: record ? { seq: record.header.monotonicSequenceNumber, recordHash: record.recordHash } : null,
        },
      );
    }
    case RecallEnd.NOT_INTACT:
      return tamperFromRecall(recall, triaged);
    case RecallEnd.AWAITING_INTEGRATION:
      // Not a timeout (an answer came, and was checked) and not tampering: the record's tree is the
      // sealer's word alone until the next integration (docs/mcp.md, `reseal_recall`), as the CLI's exit 3.
      return toolError(
        ToolErrorCode.AWAITING_INTEGRATION,
        `record of ${recall.lineageId} is sealed, awaiting integration: proven only in a head the sealer MAC'd, past the tree head the index holds; not proven memory yet, and not tampering`,
        'do not act on this record yet: recall again after the next integration (seconds); the records the index holds can be recalled now',
        {
          requestId: recall.requestId,
          lineageId: recall.lineageId,
          proven: false,
          verdict: null,
          checkpointSize: recall.checks.checkpointSize,
          truncationChecked: recall.truncationChecked,
          ...recallRollbackFields(recall),
          freshness: freshnessShape(recall.freshness),
        },
      );
    case RecallEnd.TRIAGED:
      break;
  }
  if (!record || !checkpoint || !inclusion || !delta) return tamperFromRecall(recall, triaged);
  const recordHead: HeadOutput = { seq: record.header.monotonicSequenceNumber, recordHash: record.recordHash };
  const claimKeys = record.manifest.claimDependencyMap;
  const contents = payloadClaims(record.payload);
  const contentOf = (claimId: string): JsonValue | null =>
    contents && Object.hasOwn(contents, claimId) ? (contents[claimId] as JsonValue) : null;
  // By normal form: a key declared absent that appeared in its other Unicode form drifts the claims
  // resting on the absence (docs/triage.md, "Keys declared absent"), so they name it too.
  const drifted = new Set(
    [...delta.driftedKeys.changed, ...delta.driftedKeys.vanished, ...delta.driftedKeys.appeared].map(normalFormOf),
  );
  // The record is proven (in the signed log, its writer signature checked): who wrote it is signed data.
  const writtenBy = writtenByProven(record);
  const shape = recallShape(recall, UNTRUSTED_NOTE);
  if (!shape.delta) return tamperFromRecall(recall, triaged);
  const out: RecallOutput = {
    ...shape,
    outcome: 'TRIAGED',
    end: 'TRIAGED',
    seq: recordHead.seq,
    residualId: record.header.residualId,
    recordHash: recordHead.recordHash,
    sealedAt: isoTime(record.sealedAtMs),
    writtenBy: writtenByOutput(writtenBy),
    verification: {
      verdict: VerificationVerdict.VERIFIED_INTACT,
      firstFailure: null,
      checkpointSize: checkpoint.size,
      truncationChecked: recall.truncationChecked,
      checkpoint: signedCheckpointOutput(checkpoint),
      proof: {
        leafIndex: inclusion.leafIndex,
        treeSize: inclusion.treeSize,
        inclusionProof: [...inclusion.inclusionProof],
      },
      callerCheckpoint: callerHead(recall),
    },
    delta: shape.delta,
    keptClaims: delta.retainedClaims.map((claimId) => ({
      claimId,
      causalKeys: claimKeys[claimId] ?? [],
      content: contentOf(claimId),
    })),
    reprobeClaims: delta.invalidatedClaims.map((claimId) => ({
      claimId,
      causalKeys: claimKeys[claimId] ?? [],
      driftedKeys: (claimKeys[claimId] ?? []).filter((key) => drifted.has(normalFormOf(key))),
      previousContent: contentOf(claimId),
    })),
    data: payloadData(record.payload),
    nextStep: NEXT_STEPS[delta.verdict],
    supersedes: recordHead,
    snapshot: snapshotOutput(snapshot),
  };
  const fresh = out.freshness ? `; freshness ${out.freshness.state}` : '';
  return toolResult(
    `${delta.verdict}: seq ${out.seq} of ${out.lineageId}, ${out.keptClaims.length} claim(s) kept, ${out.reprobeClaims.length} to re-probe; proven in ${provenTreeText(checkpoint, recall.freshness)} (truncation ${truncationCheckText(recallTruncationBasis(recall), MCP_TRUNCATION_HINTS)}); written by ${writtenByText(writtenBy)}${fresh}`,
    out,
  );
}
