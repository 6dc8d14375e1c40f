import type { Command } from 'commander';
import { EnvSnapshot } from '../../shared/schemas/primitives';
import { DeltaVerdict, isolateDelta } from '../../shared/triage/delta-isolator';
import { SealedDependencyManifestSchema } from '../../shared/triage/sealed-dependency-manifest';
import type { CommandContext } from '../context';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { triageReportJson, triageReportText } from '../format/triage-report';
import { readSchemaFile, validateFileContent } from '../read-input';

interface TriageOptions {
  readonly manifest: string;
  readonly env: string;
  readonly json?: boolean;
}

/** Exit code of a delta verdict: 0 when every claim stands, 10 when the agent must act. */
export function deltaExitCode(verdict: DeltaVerdict): ExitCode {
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
    .option('--json', 'print the report as JSON (snake_case)')
    .action(async (options: TriageOptions) => {
      const manifest = await readSchemaFile(
        ctx.io,
        options.manifest,
        SealedDependencyManifestSchema,
        'sealed dependency manifest',
      );
      const env = await readSchemaFile(ctx.io, options.env, EnvSnapshot, 'environment snapshot');
      // What is left after both files parsed is the manifest's self-consistency (its seal).
      const report = validateFileContent(options.manifest, 'sealed dependency manifest', () =>
        isolateDelta(manifest, env),
      );
      ctx.io.stdout(options.json ? jsonText(triageReportJson(report)) : triageReportText(report));
      ctx.exit(deltaExitCode(report.verdict));
    });
}
