import type { z } from 'zod';
import { RecordRefSchema } from '../schemas/record-ref';

/** Reference to an earlier record of the same lineage that a re-seal supersedes (docs/triage.md, "The report": the re-seal). */
export const SupersedesSchema = RecordRefSchema;
/** Type of {@link SupersedesSchema}. */
export type Supersedes = z.infer<typeof SupersedesSchema>;
