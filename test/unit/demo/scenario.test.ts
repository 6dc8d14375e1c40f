import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { soleWriterLineageId } from '../../../client/sole-writer-policy';
import { decideAfterTriage } from '../../../scripts/demo/agent';
import {
  buildScenario,
  LINEAGE_TEMPLATES,
  type LineageTemplate,
  manifestClaimMap,
  nextClaimMap,
  presentStructuralKeys,
  type ResidualBody,
  residualBody,
  resolveClaims,
} from '../../../scripts/demo/scenario';
import { parseSnapshots, type RunnerSnapshot, sliceSnapshots } from '../../../scripts/demo/snapshots';
import { buildManifest } from '../../../shared/triage/build-manifest';
import { isolateDelta } from '../../../shared/triage/isolate-delta';
import { type ExpectedRecall, expectedRecalls, expectedTotals } from '../../helpers/demo-expected-counts';

const snapshots = parseSnapshots(readFileSync('examples/runner-images/ubuntu-24.04.jsonl', 'utf8'));
const template = (name: string) => LINEAGE_TEMPLATES.find((t) => t.name === name) as LineageTemplate;

/** The demo's agent loop in process: the core's buildManifest + isolateDelta, the demo's decisions. */
function replayInProcess(lineage: LineageTemplate, slice: readonly RunnerSnapshot[]): ExpectedRecall[] {
  const first = slice[0] as RunnerSnapshot;
  let claims = resolveClaims(lineage, first.env).claimDependencyMap;
  let structuralKeys = presentStructuralKeys(lineage, first.env);
  const manifestAt = (env: Readonly<Record<string, string>>) =>
    buildManifest({ env, structuralKeys, claimDependencyMap: manifestClaimMap(lineage, claims) });
  let manifest = manifestAt(first.env);
  let seq = 0;
  return slice.map((snapshot) => {
    const report = isolateDelta(manifest, snapshot.env);
    const decision = decideAfterTriage(lineage, claims, structuralKeys, report, snapshot.env);
    const recall: ExpectedRecall = {
      lineage: lineage.name,
      snapshotIndex: snapshot.index,
      verdict: report.verdict,
      kept: decision.kept,
      reprobed: decision.reprobe,
      mattered: decision.mattered,
      absentAppeared: decision.absentAppeared,
      quarantinedOnAbsence: decision.quarantinedOnAbsence,
      environmentChanged: !report.sealIntact,
      recalledSeq: seq,
    };
    if (decision.next) {
      claims = decision.next.claimDependencyMap;
      structuralKeys = presentStructuralKeys(lineage, snapshot.env);
      manifest = manifestAt(snapshot.env);
      seq += 1;
    }
    return recall;
  });
}

describe('demo scenario on the real runner-image series', () => {
  it('every causal and structural key of every claim exists in the first snapshot (compose via v2)', () => {
    const first = snapshots[0] as RunnerSnapshot;
    for (const lineage of LINEAGE_TEMPLATES) {
      expect(resolveClaims(lineage, first.env).unavailable).toEqual([]);
      expect(presentStructuralKeys(lineage, first.env)).toEqual(['os:version']);
    }
    expect(
      resolveClaims(template('container-deploy'), first.env).claimDependencyMap['compose-integration-stack'],
    ).toEqual(['tool:docker compose v2']);
  });

  it('a claim whose key was renamed resolves to the successor key; one with no key left is unavailable', () => {
    const last = snapshots[39] as RunnerSnapshot;
    const container = template('container-deploy');
    expect(resolveClaims(container, last.env).claimDependencyMap['compose-integration-stack']).toEqual([
      'tool:docker compose',
    ]);
    const { 'tool:kubectl': _, ...withoutKubectl } = last.env;
    // podman & co. are in the last report, so the claim resting on their absence cannot be stated either.
    expect(resolveClaims(container, withoutKubectl).unavailable).toEqual([
      'kubectl-rollout',
      'single-container-runtime',
    ]);
  });

  it('the data: six tools appear between the first two reports, podman, buildah and skopeo among them', () => {
    const [s0, s1] = snapshots as [RunnerSnapshot, RunnerSnapshot];
    const appeared = Object.keys(s1.env).filter((k) => !Object.hasOwn(s0.env, k));
    expect(appeared.filter((k) => k.startsWith('tool:')).sort()).toEqual([
      'tool:bazel',
      'tool:bazelisk',
      'tool:buildah',
      'tool:fastlane',
      'tool:podman',
      'tool:skopeo',
    ]);
    expect(Object.keys(s0.env).filter((k) => !Object.hasOwn(s1.env, k))).toEqual([]);
  });

  it('keys declared absent: the second-runtime claim is sealed on the absence of podman, buildah and skopeo, quarantined when they arrive, then dropped', () => {
    const container = template('container-deploy');
    const slice = sliceSnapshots(snapshots, { from: 0, to: 1 });
    const [s0] = slice as [RunnerSnapshot];
    const claims = resolveClaims(container, s0.env).claimDependencyMap;
    expect(claims['single-container-runtime']).toEqual([]);
    const manifest = buildManifest({
      env: s0.env,
      structuralKeys: ['os:version'],
      claimDependencyMap: manifestClaimMap(container, claims),
    });
    expect(manifest.formatVersion === 2 && manifest.absentKeys).toEqual(['tool:buildah', 'tool:podman', 'tool:skopeo']);
    const [atWrite, atArrival] = replayInProcess(container, slice);
    expect(atWrite?.verdict).toBe('NO_DRIFT');
    expect(atArrival?.reprobed).toContain('single-container-runtime');
    expect(atArrival?.quarantinedOnAbsence).toEqual(['single-container-runtime']);
    expect(atArrival?.absentAppeared).toEqual(['tool:buildah', 'tool:podman', 'tool:skopeo']);
    expect(atArrival?.mattered).toEqual(expect.arrayContaining(['tool:buildah', 'tool:podman', 'tool:skopeo']));
    expect(expectedRecalls(container, slice)).toEqual([atWrite, atArrival]);
    const s1 = slice[1] as RunnerSnapshot;
    expect(resolveClaims(container, s1.env).unavailable).toEqual(['single-container-runtime']);
  });

  it('docs/triage.md rules 8 and 10: the demo agent, run on the core triage in process, matches the independent key/value model at every recall', () => {
    for (const every of [1, 3, 7]) {
      const slice = sliceSnapshots(snapshots, { every });
      for (const lineage of LINEAGE_TEMPLATES) {
        expect(replayInProcess(lineage, slice)).toEqual(expectedRecalls(lineage, slice));
      }
    }
  });

  it('the default slice shows all four delta verdicts, re-seals, and savings over a monolithic seal', () => {
    const totals = expectedTotals(LINEAGE_TEMPLATES, sliceSnapshots(snapshots, { every: 3 }));
    expect(totals.recalls).toBe(3 * 14);
    for (const n of Object.values(totals.byVerdict)) expect(n).toBeGreaterThan(0);
    expect(totals.byVerdict.NO_DRIFT).toBe(3);
    expect(totals.monolithicInvalidatedRecalls).toBe(3 * 13);
    expect(totals.claimsSaved).toBeGreaterThan(0);
    expect(totals.claimsSaved + totals.claimsReprobed).toBe(totals.monolithicClaimsRederived);
  });

  it('the structural key os:version forces FULL_RECONSTRUCTION_REQUIRED when the point release changes (docs/triage.md rule 6)', () => {
    const recalls = expectedRecalls(template('python-ci'), sliceSnapshots(snapshots, { from: 6, to: 7 }));
    expect(recalls[1]?.verdict).toBe('FULL_RECONSTRUCTION_REQUIRED');
    expect(recalls[1]?.mattered).toContain('os:version');
    const inProcess = replayInProcess(template('python-ci'), sliceSnapshots(snapshots, { from: 6, to: 7 }));
    expect(inProcess[1]?.verdict).toBe('FULL_RECONSTRUCTION_REQUIRED');
  });
});

describe('scenario plan and payloads', () => {
  const slice = sliceSnapshots(snapshots, { from: 0, to: 9, every: 3 });

  it('plans each lineage written at the first snapshot and recalled at every snapshot, ids unique per run', () => {
    const scenario = buildScenario(slice, 'run-1');
    // Self-certifying ids (docs/authorship.md): the run's label, then the digest of the policy of
    // the lineage's own writer key, generated per run.
    expect(scenario.lineages.map((l) => l.lineageId.replace(/\.[0-9a-f]{32}$/, ''))).toEqual([
      'demo-run-1-node-build',
      'demo-run-1-python-ci',
      'demo-run-1-container-deploy',
    ]);
    for (const l of scenario.lineages) {
      expect(l.lineageId).toBe(soleWriterLineageId(`demo-run-1-${l.template.name}`, l.writer));
      expect(l.writeAt).toBe(0);
      expect(l.recallAt).toEqual([0, 1, 2, 3]);
    }
    const [node, python] = scenario.lineages;
    expect(scenario.refusedWrite.lineageId).toBe(node?.lineageId);
    expect(scenario.tamperLineageId).toBe(python?.lineageId);
    expect(buildScenario(slice, 'run-1').lineages[0]?.lineageId).not.toBe(node?.lineageId);
    expect(() => buildScenario(slice, 'Bad Id')).toThrow(RangeError);
    expect(() => buildScenario(slice.slice(0, 1), 'x')).toThrow(RangeError);
  });

  it('a superseding payload carries retained claims unchanged and re-observes re-probed ones', () => {
    const node = template('node-build');
    const [s0, s1] = slice as [RunnerSnapshot, RunnerSnapshot];
    const map0 = resolveClaims(node, s0.env).claimDependencyMap;
    const body0: ResidualBody = residualBody(node, s0, map0, Object.keys(map0), null);
    expect(body0.claims['node-runtime-in-engines-range']?.observed).toEqual({ 'language:node.js': '20.12.2' });
    const next = nextClaimMap(
      node,
      map0,
      ['yarn-classic-workspaces', 'native-addons-compile'],
      ['node-runtime-in-engines-range', 'npm-ci-lockfile-v3'],
      s1.env,
    );
    const body1 = residualBody(
      node,
      s1,
      next.claimDependencyMap,
      ['node-runtime-in-engines-range', 'npm-ci-lockfile-v3'],
      body0,
    );
    expect(body1.claims['yarn-classic-workspaces']).toEqual(body0.claims['yarn-classic-workspaces']);
    expect(body1.claims['node-runtime-in-engines-range']?.observed['language:node.js']).toBe(
      s1.env['language:node.js'],
    );
    expect(body1.claims['node-runtime-in-engines-range']?.probedAtSnapshot).toBe(s1.index);
    expect(() => residualBody(node, s1, next.claimDependencyMap, [], null)).toThrow(/neither re-probed/);
  });
});
