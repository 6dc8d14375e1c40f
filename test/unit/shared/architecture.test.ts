import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as core from '../../../shared/index';

const SHARED = join(import.meta.dirname, '..', '..', '..', 'shared');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('architecture: shared/ is the pure domain core', () => {
  const files = sourceFiles(SHARED);

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files.map((file) => [file.slice(SHARED.length + 1), file]))(
    '%s imports no AWS, CDK, Powertools or middy',
    (_name, file) => {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'/g)].map((match) => match[1]);
      const forbidden = imports.filter((spec) =>
        /^(@aws-sdk\/|aws-cdk-lib|constructs|@aws-lambda-powertools\/|@middy\/|node:(http|https|net|dgram|tls))/.test(
          spec ?? '',
        ),
      );
      expect(forbidden).toEqual([]);
    },
  );

  it('exports each protocol entry point from the barrel', () => {
    for (const name of [
      'evaluateWrite',
      'sealRecord',
      'verifyChain',
      'isolateDelta',
      'buildManifest',
      'canonicalJson',
      'hashCanonical',
    ]) {
      expect(typeof (core as Record<string, unknown>)[name], name).toBe('function');
    }
    expect(Object.values(core.DeltaVerdict)).toEqual([
      'NO_DRIFT',
      'AMBIENT_DRIFT_ONLY',
      'PARTIAL_REPROBE_REQUIRED',
      'FULL_RECONSTRUCTION_REQUIRED',
    ]);
  });
});
