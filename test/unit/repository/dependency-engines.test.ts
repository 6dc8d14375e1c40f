import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url);

interface LockPackage {
  readonly engines?: { readonly node?: string } | readonly string[];
  readonly dev?: boolean;
}

/**
 * Every installed package must run on the oldest Node.js the package.json `engines` field
 * promises: a dependency that declares a later Node.js makes that promise false for whoever
 * installs Reseal on it (README.md, "Two commands").
 */
describe('dependency engines', () => {
  const manifest = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
    engines: { node: string };
  };
  const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as {
    packages: Record<string, LockPackage>;
  };
  const oldest = semver.minVersion(manifest.engines.node)?.version;

  it('the oldest Node.js package.json accepts is a real version', () => {
    expect(oldest).toMatch(/^20\.\d+\.\d+$/);
  });

  it('every package in package-lock.json accepts that Node.js', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, pkg]) => {
        const range = Array.isArray(pkg.engines) ? undefined : (pkg.engines as { node?: string } | undefined)?.node;
        return range !== undefined && !semver.satisfies(oldest ?? '0.0.0', range)
          ? [`${path} needs node ${range}`]
          : [];
      });
    expect(Object.keys(lock.packages).length).toBeGreaterThan(100);
    expect(refusing).toEqual([]);
  });
});
