import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import type { BuildManifestInput } from '../../../../shared/triage/build-manifest-input';
import { compositeSeal } from '../../../../shared/triage/composite-seal';
import { DeltaVerdict } from '../../../../shared/triage/delta-isolation-report';
import { envKeyHash } from '../../../../shared/triage/env-key-hash';
import { isolateDelta } from '../../../../shared/triage/isolate-delta';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import type { SealedDependencyManifest } from '../../../../shared/triage/sealed-dependency-manifest';
import { triageReportDigest } from '../../../../shared/triage/triage-report-digest';

interface TriageCase {
  name: string;
  record: BuildManifestInput;
  currentEnv: Record<string, string>;
  expected: {
    manifest: SealedDependencyManifest;
    manifestDigest: string;
    currentKeyHashes: Record<string, string>;
    currentSeal: string;
    report: ReturnType<typeof isolateDelta>;
    reportDigest: string;
  };
}
const file = JSON.parse(readFileSync(new URL('../../../vectors/triage.json', import.meta.url), 'utf8')) as {
  formatVersion: number;
  cases: TriageCase[];
};

describe('test/vectors/triage.json', () => {
  it('exercises every verdict', () => {
    expect(new Set(file.cases.map((c) => c.expected.report.verdict))).toEqual(new Set(Object.values(DeltaVerdict)));
  });

  it('format-2 cases (declared absent keys) exercise every verdict too; every other case stays format 1', () => {
    const v2 = file.cases.filter((c) => c.name.startsWith('format 2: '));
    expect(new Set(v2.map((c) => c.expected.report.verdict))).toEqual(new Set(Object.values(DeltaVerdict)));
    for (const c of file.cases) {
      expect(c.expected.manifest.formatVersion, c.name).toBe(v2.includes(c) ? 2 : 1);
      expect('absentKeys' in c.expected.manifest, c.name).toBe(v2.includes(c));
    }
  });

  it.each(file.cases.map((c) => [c.name, c] as const))('case "%s": key hashes, seals, verdict and digests', (_, c) => {
    const manifest = buildManifest(c.record);
    expect(manifest).toEqual(c.expected.manifest);
    for (const [key, value] of Object.entries(c.record.env)) {
      expect(envKeyHash(key, value)).toBe(c.expected.manifest.baselineKeyHashes[key]);
    }
    expect(compositeSeal(manifest.baselineKeyHashes)).toBe(c.expected.manifest.preconditionSeal);
    expect(manifestDigest(manifest)).toBe(c.expected.manifestDigest);
    for (const [key, value] of Object.entries(c.currentEnv)) {
      expect(envKeyHash(key, value)).toBe(c.expected.currentKeyHashes[key]);
    }
    expect(compositeSeal(c.expected.currentKeyHashes)).toBe(c.expected.currentSeal);
    const report = isolateDelta(c.expected.manifest, c.currentEnv);
    expect(report).toEqual(c.expected.report);
    expect(report.sealIntact).toBe(c.expected.currentSeal === manifest.preconditionSeal);
    expect(triageReportDigest(report)).toBe(c.expected.reportDigest);
  });
});
