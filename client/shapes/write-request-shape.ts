import { z } from 'zod';
import { ResidualWriteRequestSchema } from '../../shared/write/write-request';

/** `format` of a {@link WriteRequestShape}: bumped only when a field changes meaning or goes away. */
export const WRITE_REQUEST_FORMAT = 'reseal.write-request/1';

/**
 * A residual write request as `reseal write-request --json` prints it (docs/cli.md, `reseal
 * write-request`), tagged like every other `--json` output: `request` is the wire format itself,
 * unchanged (`schemas/ResidualWriteRequest.schema.json`), unsigned (no `writer` block) unless
 * `--sign`. Without `--json` the command prints that request alone, the file `publish --request` takes.
 */
export const WriteRequestShape = z.object({
  format: z.literal(WRITE_REQUEST_FORMAT),
  request: ResidualWriteRequestSchema.partial({ writer: true }),
});
/** Type of {@link WriteRequestShape}. */
export type WriteRequestShape = z.infer<typeof WriteRequestShape>;
