import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * Synthesizes the stacks `build` adds to an app checked by cdk-nag's AWS Solutions rules (findings
 * acknowledged in CloudFormation metadata), writing into `outdir`. Returns what `build` returned,
 * what `synth` threw
 * (`undefined` when it did not) and every violation of the validation report (none when no report
 * was written, i.e. nothing was found).
 */
export function synthWithNag<T>(
  context: Record<string, unknown>,
  outdir: string,
  build: (app: App) => T,
): { readonly built: T; readonly failure: unknown; readonly violations: unknown[] } {
  const app = new App({ context, outdir });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }));
  const built = build(app);
  let failure: unknown;
  try {
    app.synth();
  } catch (error) {
    failure = error;
  }
  let violations: unknown[] = [];
  try {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { violations: unknown[] }[];
    };
    violations = report.pluginReports.flatMap((r) => r.violations);
  } catch {
    // no report: nothing was found
  }
  return { built, failure, violations };
}
