import type { Command } from 'commander';
import { manifestShape } from '../../client/shapes/manifest-shape';
import { InvalidInputError } from '../../shared/errors';
import { groupedCount } from '../../shared/schemas/grouped-count';
import { buildManifest } from '../../shared/triage/build-manifest';
import { ClaimKeysMapInput } from '../../shared/triage/build-manifest-input';
import { commaList } from '../comma-list';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { readEnvSnapshotFile } from '../read-env-snapshot';
import { readSchemaFile } from '../read-file';
import { statusLine } from '../status-line';

/**
 * CLAIMS.json: claim id → its causal keys (the manifest's `claimDependencyMap`), or
 * `{ "causalKeys": [...], "absentKeys": [...] }` for a claim that rests on keys being absent.
 */
const ClaimsFile = ClaimKeysMapInput;

interface ManifestOptions {
  readonly env: string;
  readonly structural: string;
  readonly structuralAbsent: string;
  readonly claims: string;
  readonly json?: boolean;
}

/**
 * `reseal manifest`: builds the sealed dependency manifest (docs/triage.md, "The four recorded elements") from
 * a baseline environment, the structural keys and each claim's causal keys, and prints it as
 * camelCase JSON (the wire format `triage --manifest` and a write request take); `--json` wraps it
 * in the `reseal.manifest/1` shape every `--json` output is tagged with. Keys declared
 * absent (`--structural-absent`, a claim's `absentKeys`) make it a format-2 manifest
 * (docs/triage.md, "Keys declared absent").
 */
export function registerManifest(program: Command, ctx: CommandContext): void {
  program
    .command('manifest')
    .summary('build the sealed dependency manifest (offline)')
    .description(
      'Builds the sealed dependency manifest of differential seal triage from the environment at write time and prints it as JSON.\n' +
        'BASELINE.json is a flat object of key to string value. CLAIMS.json maps each claim id to its list of causal keys, ' +
        'or to { "causalKeys": [...], "absentKeys": [...] } for a claim that rests on keys being absent from BASELINE.json; ' +
        'such a key appearing later invalidates the claim (with --structural-absent, the whole record).',
    )
    .requiredOption('--env <BASELINE.json>', 'environment at write time: { "KEY": "value", ... }')
    .option('--structural <KEY1,KEY2>', 'comma-separated structural keys (drift invalidates the whole record)', '')
    .option(
      '--structural-absent <KEY1,KEY2>',
      'comma-separated structural keys absent from BASELINE.json (their appearance invalidates the whole record)',
      '',
    )
    .requiredOption(
      '--claims <CLAIMS.json>',
      'claim id to causal keys: { "claim-id": ["KEY", ...] | { "causalKeys": [...], "absentKeys": [...] }, ... }',
    )
    .option('--json', 'print the manifest in the reseal.manifest/1 shape (docs/cli.md): { format, manifest }')
    .action(async (options: ManifestOptions) => {
      // The status line only ever on a terminal's stderr, and never with --json.
      const status = statusLine(ctx.io, { quiet: options.json });
      const env = await readEnvSnapshotFile(ctx.io, options.env, status);
      const claims = await readSchemaFile(ctx.io, options.claims, ClaimsFile, 'claim dependency map');
      const structuralKeys = commaList(options.structural);
      const structuralAbsentKeys = commaList(options.structuralAbsent);
      let manifest: ReturnType<typeof buildManifest>;
      status.show(`manifest: hashing ${groupedCount(Object.keys(env).length)} keys`);
      try {
        manifest = buildManifest({ env, structuralKeys, structuralAbsentKeys, claimDependencyMap: claims });
      } catch (error) {
        if (error instanceof InvalidInputError) throw manifestInputError(error, options);
        throw error;
      } finally {
        status.finish();
      }
      ctx.io.stdout(jsonText(options.json ? manifestShape(manifest) : manifest));
      ctx.exit(ExitCode.OK);
    });
}

/**
 * Names the file or option each problem comes from: `structuralKeys.*` → --structural,
 * `structuralAbsentKeys.*` → --structural-absent, claims → CLAIMS.json.
 */
function manifestInputError(error: InvalidInputError, options: ManifestOptions): BadInputError {
  const lines = error.issues.map((issue) => {
    const [head, ...rest] = issue.path.split('.');
    if (head === 'structuralKeys') return `  --structural: ${issue.message} (${options.env})`;
    if (head === 'structuralAbsentKeys') return `  --structural-absent: ${issue.message} (${options.env})`;
    if (head === 'claimDependencyMap')
      return `  ${options.claims} at ${rest.join('.')}: ${issue.message} (${options.env})`;
    if (head === 'env') return `  ${options.env} at ${rest.join('.') || '<root>'}: ${issue.message}`;
    return `  at ${issue.path || '<root>'}: ${issue.message}`;
  });
  return new BadInputError(`cannot build the manifest\n${lines.join('\n')}`, { cause: error });
}
