import type { Command } from 'commander';
import { z } from 'zod';
import { WRITE_REQUEST_FORMAT } from '../../client/shapes/write-request-shape';
import { soleWriterLineageId, soleWriterPolicy } from '../../client/sole-writer-policy';
import { writeRequest } from '../../client/write-request';
import { signWriteRequest } from '../../shared/authorship/write-signature';
import { InvalidInputError } from '../../shared/errors';
import type { WriterSigner } from '../../shared/ports/writer-signer';
import { type Authority, AuthoritySchema } from '../../shared/schemas/authority';
import { SealedDependencyManifestSchema } from '../../shared/triage/sealed-dependency-manifest';
import { SessionVariableSchema } from '../../shared/write/session-variable';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { integerOption } from '../integer-option';
import { issueLines } from '../issue-lines';
import { readJsonFile, readSchemaFile } from '../read-file';
import {
  WRITER_KEY_OPTION,
  WRITER_KMS_KEY_OPTION,
  type WriterKeyOptions,
  writerSignerFrom,
} from '../writer-key-option';

interface WriteRequestOptions extends WriterKeyOptions {
  readonly lineage?: string;
  readonly label?: string;
  readonly residualId: string;
  readonly session: string;
  readonly epoch: number;
  readonly payload: string;
  readonly manifest: string;
  readonly variables?: string;
  readonly authority?: string;
  readonly predecessorSession?: string;
  readonly predecessorEpoch?: number;
  readonly boundaryAtMs?: number;
  readonly sign?: boolean;
  readonly inception?: boolean;
  readonly json?: boolean;
}

/** VARIABLES.json: the session variables the conclusion used (docs/guard.md, "Input"). */
const VariablesFile = z.array(SessionVariableSchema);

/**
 * `reseal write-request`: builds a residual write request (docs/guard.md, "Input"), unsigned unless `--sign`, from
 * a payload, a manifest (`reseal manifest`) and the session's facts, with the builder the client
 * uses (`writeRequest`, client/write-request.ts), and prints it as JSON. The lineage is given by id, or
 * by `--label` and the writer key (its self-certifying id, as `reseal lineage-id` prints it), so a
 * first request needs no hand-edited id. `publish` signs the request and, on a lineage's first
 * write, adds its inception policy (docs/authorship.md, "Self-certifying lineage ids").
 *
 * Offline. Exit 2 naming each bad field or file.
 */
export function registerWriteRequest(program: Command, ctx: CommandContext): void {
  program
    .command('write-request')
    .summary('build a residual write request for publish and guard, unsigned unless --sign (offline)')
    .description(
      "Builds a residual write request (offline) and prints it as JSON. Unsigned by default: publish signs it when it sends it (and adds the inception policy to a lineage's first write). --sign signs it now with the writer key, for reseal guard and for a sender that puts it on the queue itself; --inception adds the writer key's own policy.",
    )
    .option('--lineage <ID>', 'the lineage id (or --label with the writer key)')
    .option('--label <L>', "the lineage label: the id is the label under the writer key's own policy")
    .option(...WRITER_KEY_OPTION)
    .option(...WRITER_KMS_KEY_OPTION)
    .requiredOption('--residual-id <ID>', 'the residual id of this conclusion (unique in the lineage)')
    .requiredOption('--session <ID>', 'the session writing it (its active session)')
    .requiredOption('--epoch <N>', "the session's generation epoch (the fencing token)", integerOption)
    .requiredOption('--payload <PAYLOAD.json>', 'the conclusion: any JSON value')
    .requiredOption('--manifest <MANIFEST.json>', 'the sealed dependency manifest (reseal manifest)')
    .option('--variables <VARIABLES.json>', 'the session variables the conclusion used: a JSON array (default [])')
    .option('--authority <A>', `the write's authority: ${AuthoritySchema.options.join(', ')} (default OPERATIONAL)`)
    .option('--predecessor-session <ID>', 'the session this one took over from (with --predecessor-epoch)')
    .option('--predecessor-epoch <N>', "the predecessor's generation epoch", integerOption)
    .option(
      '--boundary-at-ms <MS>',
      'when this session took over, ms since the Unix epoch (default: now)',
      integerOption,
    )
    .option('--sign', 'sign it with the writer key now (the guard and a raw SQS send need it; publish signs anew)')
    .option('--inception', "with --sign: add the writer key's own policy, which a lineage's first write carries")
    .option(
      '--json',
      'print it inside the reseal.write-request/1 shape, { format, request } (docs/cli.md); without it the request alone',
    )
    .action(async (options: WriteRequestOptions) => {
      if (options.inception && !options.sign) throw new BadInputError('--inception needs --sign');
      const writer = options.sign || options.label !== undefined ? await writerSignerFrom(ctx.io, options) : undefined;
      if (options.sign && !writer) {
        throw new BadInputError('--sign needs the writer key: --writer-key, --writer-kms-key or $RESEAL_WRITER_KEY');
      }
      const lineageId = lineageOf(options, writer);
      if ((options.predecessorSession === undefined) !== (options.predecessorEpoch === undefined)) {
        throw new BadInputError(
          'give --predecessor-session and --predecessor-epoch together (or neither: a cold start)',
        );
      }
      const authority = options.authority === undefined ? undefined : authorityOf(options.authority);
      const payload = await readJsonFile(ctx.io, options.payload, 'payload');
      const manifest = await readSchemaFile(ctx.io, options.manifest, SealedDependencyManifestSchema, 'manifest');
      const variables = options.variables
        ? await readSchemaFile(ctx.io, options.variables, VariablesFile, 'session variables')
        : [];
      let request: ReturnType<typeof writeRequest>;
      try {
        request = writeRequest({
          residualId: options.residualId,
          lineageId,
          sessionId: options.session,
          generationEpoch: options.epoch,
          payload: payload as Parameters<typeof writeRequest>[0]['payload'],
          variables,
          manifest,
          boundaryAtMs: options.boundaryAtMs ?? ctx.io.nowMs(),
          ...(authority ? { authority } : {}),
          ...(options.predecessorSession !== undefined && options.predecessorEpoch !== undefined
            ? { predecessor: { sessionId: options.predecessorSession, epoch: options.predecessorEpoch } }
            : {}),
        });
      } catch (error) {
        if (error instanceof InvalidInputError) {
          throw new BadInputError(`cannot build the write request\n${issueLines(error)}`, { cause: error });
        }
        throw error;
      }
      let built: object = request;
      if (options.sign && writer) {
        const withPolicy = options.inception ? { ...request, policy: soleWriterPolicy(writer) } : request;
        built = await signWriteRequest(withPolicy, writer, ctx.io.nowMs());
      }
      ctx.io.stdout(jsonText(options.json ? { format: WRITE_REQUEST_FORMAT, request: built } : built));
      ctx.exit(ExitCode.OK);
    });
}

/** The lineage id: `--lineage`, or `--label` under the writer key's sole-writer policy. @throws {BadInputError} */
function lineageOf(options: WriteRequestOptions, writer: WriterSigner | undefined): string {
  if (options.lineage !== undefined && options.label !== undefined) {
    throw new BadInputError('give --lineage or --label, not both');
  }
  if (options.lineage !== undefined) return options.lineage;
  if (options.label === undefined) {
    throw new BadInputError('give the lineage: --lineage ID, or --label L with --writer-key (or $RESEAL_WRITER_KEY)');
  }
  if (!writer)
    throw new BadInputError('--label needs the writer key: --writer-key, --writer-kms-key or $RESEAL_WRITER_KEY');
  return soleWriterLineageId(options.label, writer);
}

/** @throws {BadInputError} naming the accepted values */
function authorityOf(value: string): Authority {
  const parsed = AuthoritySchema.safeParse(value);
  if (!parsed.success) {
    throw new BadInputError(
      `--authority: expected one of ${AuthoritySchema.options.join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return parsed.data;
}
