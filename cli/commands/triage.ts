import type { Command } from 'commander';
import { deltaShape } from '../../client/shapes/delta-shape';
import { groupedCount } from '../../shared/schemas/grouped-count';
import { parseInput } from '../../shared/schemas/parse';
import { markValidated } from '../../shared/schemas/validated';
import { acceptsManifestV1 } from '../../shared/triage/accepts-manifest-v1';
import { DeltaVerdict } from '../../shared/triage/delta-isolation-report';
import { isolateValidatedDelta } from '../../shared/triage/isolate-delta';
import {
  type SealedDependencyManifest,
  SealedDependencyManifestSchema,
} from '../../shared/triage/sealed-dependency-manifest';
import type { CommandContext } from '../context';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { triageReportText } from '../format/triage-report';
import { megabytes } from '../megabytes';
import { readEnvSnapshotFile } from '../read-env-snapshot';
import { INPUT_FILE_LIMIT, readJsonFile, validateFileContent } from '../read-file';
import { statusLine } from '../status-line';

const MANIFEST = 'sealed dependency manifest';

interface TriageOptions {
  readonly manifest: string;
  readonly env: string;
  readonly json?: boolean;
}

/** Exit code of a delta verdict: 0 when every claim stands, 10 when the agent must act. */
export function triageExitCode(verdict: DeltaVerdict): ExitCode {
  return verdict === DeltaVerdict.NO_DRIFT || verdict === DeltaVerdict.AMBIENT_DRIFT_ONLY
    ? ExitCode.OK
    : ExitCode.ACTION_NEEDED;
}

/**
 * `reseal triage`: differential seal triage (docs/triage.md) of a manifest against the current
 * environment; prints the delta isolation report.
 */
export function registerTriage(program: Command, ctx: CommandContext): void {
  program
    .command('triage')
    .summary('isolate the environment delta against a manifest (offline)')
    .description(
      'Runs differential seal triage: compares the current environment with a sealed dependency\n' +
        'manifest and prints which keys drifted and which claims stand or must be re-probed.',
    )
    .requiredOption('--manifest <MANIFEST.json>', 'sealed dependency manifest (as `reseal manifest` prints it)')
    .requiredOption('--env <CURRENT.json>', 'environment now: { "KEY": "value", ... }')
    .option('--json', 'print the report as JSON (the reseal.delta/1 shape, docs/cli.md)')
    .action(async (options: TriageOptions) => {
      const status = statusLine(ctx.io, { quiet: options.json });
      const rawManifest = await readJsonFile(ctx.io, options.manifest, MANIFEST, {
        ...INPUT_FILE_LIMIT,
        onBytes: (done) => status.show(`${options.manifest}: read ${megabytes(done)}`),
      });
      status.show(`${options.manifest}: checking the manifest`);
      // Validated once: the hand-written checks of a format-1 manifest, else the schema (which words the errors).
      const manifest = acceptsManifestV1(rawManifest)
        ? markValidated(rawManifest as SealedDependencyManifest)
        : markValidated(
            validateFileContent(options.manifest, MANIFEST, () =>
              parseInput(SealedDependencyManifestSchema, rawManifest, MANIFEST, { unknownFieldPerKey: true }),
            ),
          );
      const env = await readEnvSnapshotFile(ctx.io, options.env, status);
      status.show(`triage: hashing ${groupedCount(Object.keys(env).length)} keys`);
      // What is left after both files parsed is the manifest's self-consistency (its seal).
      const report = validateFileContent(options.manifest, MANIFEST, () => isolateValidatedDelta(manifest, env));
      status.finish();
      ctx.io.stdout(options.json ? jsonText(deltaShape(report)) : triageReportText(report));
      ctx.exit(triageExitCode(report.verdict));
    });
}
