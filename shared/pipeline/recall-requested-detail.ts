import { z } from 'zod';
import { EnvSnapshot } from '../schemas/env-snapshot';
import { Identifier } from '../schemas/identifier';
import { SupersedesSchema } from '../seal/supersedes';
import { RecallTargetSchema } from './recall-target';
import { SignedNoteText } from './signed-note-text';

/** `detail` of a `RecallRequested` event (docs/pipeline.md, "Message shapes"; strict). */
export const RecallRequestedDetailSchema = z.strictObject({
  requestId: Identifier,
  lineageId: Identifier,
  target: RecallTargetSchema,
  /** The environment now (an `EnvSnapshot`). */
  currentEnv: EnvSnapshot,
  /** A head the caller trusts (e.g. from a `ResidualSealed` event): detects tail truncation. */
  checkpoint: SupersedesSchema.optional(),
  /**
   * A signed checkpoint the caller keeps: triage proves the latest checkpoint consistent with it
   * (RFC 9162 §2.1.4), so a rollback or a fork shows.
   */
  trustedCheckpoint: SignedNoteText.optional(),
});
/** Type of {@link RecallRequestedDetailSchema}. */
export type RecallRequestedDetail = z.infer<typeof RecallRequestedDetailSchema>;
