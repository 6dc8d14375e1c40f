import { describe, expect, it } from 'vitest';
import { constantVariable, freshVariable, inheritedVariable, reprobedVariable } from '../../../client/variables';
import { writeRequest } from '../../../client/write-request';
import { InvalidInputError } from '../../../shared/errors';
import { evaluateWrite } from '../../../shared/guard/evaluate-write';
import { buildManifest } from '../../../shared/triage/build-manifest';
import { valueDigest } from '../../../shared/write/value-digest';
import { ResidualWriteRequestSchema } from '../../../shared/write/write-request';
import { signWriteSync, TEST_WRITER } from '../../helpers/writer-factories';

const NOW = 1_800_000_000_000;
const policy = { nowMs: NOW, maxReceiptAgeSeconds: 900 };

/** The guard's verdict on a built request once its writer has signed it (builders leave it unsigned). */
const guard = (built: ReturnType<typeof writeRequest>) => evaluateWrite(signWriteSync(built, TEST_WRITER, NOW), policy);

function request(variables: Parameters<typeof writeRequest>[0]['variables']) {
  return writeRequest({
    residualId: 'residual-1',
    lineageId: 'lineage-1',
    sessionId: 'session-2',
    generationEpoch: 2,
    payload: { conclusion: 'node build works' },
    boundaryAtMs: NOW - 60_000,
    predecessor: { sessionId: 'session-1', epoch: 1 },
    variables,
    manifest: {
      env: { ARCH: 'x86_64', NODE_VERSION: '20.19.6', HOSTNAME: 'runner-1' },
      structuralKeys: ['ARCH'],
      claimDependencyMap: { 'node-build-works': ['NODE_VERSION'] },
    },
  });
}

describe('client builders', () => {
  it('docs/guard.md V2–V3: a re-probed variable carries a receipt naming the digest of its value', () => {
    const v = reprobedVariable('INSTANCE', 'i-0abc', 1, {
      probe: 'ec2:DescribeInstances',
      sessionId: 's',
      probedAtMs: NOW,
    });
    expect(v.freshness).toBe('VERIFIED_INHERITED');
    expect(v.receipt?.observedValueDigest).toBe(valueDigest('i-0abc'));
  });

  it('docs/guard.md: a request built from fresh, re-probed and constant variables passes the guard', () => {
    const built = request([
      freshVariable('ATTEMPT', 'a-1', 2),
      reprobedVariable('INSTANCE', 'i-0abc', 1, {
        probe: 'ec2:DescribeInstances',
        sessionId: 'session-2',
        probedAtMs: NOW - 1000,
      }),
      constantVariable('API_SCHEMA', '2024-01-01'),
    ]);
    expect(built.declaredImmutableConstants).toEqual(['API_SCHEMA']);
    expect(built.boundary).toEqual({
      activeSessionId: 'session-2',
      predecessorSessionId: 'session-1',
      predecessorEpoch: 1,
      boundaryAtMs: NOW - 60_000,
    });
    expect(built.manifest.structuralKeys).toEqual(['ARCH']);
    expect(built).not.toHaveProperty('writer');
    expect(guard(built).isSafe).toBe(true);
  });

  it('docs/guard.md V4: an inherited variable that was not re-probed makes the guard refuse', () => {
    const verdict = guard(request([inheritedVariable('TOKEN', 'tok', 1)]));
    expect(verdict.isSafe).toBe(false);
    expect(verdict.rejectedVariables.map((r) => [r.name, r.reason])).toEqual([['TOKEN', 'UNVERIFIED_INHERITED']]);
  });

  it('docs/guard.md E3: a cold-start request (no predecessor) with a re-probed inherited variable is refused INHERITED_WITHOUT_PREDECESSOR', () => {
    const coldStart = writeRequest({
      residualId: 'residual-1',
      lineageId: 'lineage-1',
      sessionId: 'session-2',
      generationEpoch: 2,
      payload: null,
      boundaryAtMs: NOW - 60_000,
      variables: [
        reprobedVariable('INSTANCE', 'i-0abc', 1, {
          probe: 'ec2:DescribeInstances',
          sessionId: 'session-2',
          probedAtMs: NOW,
        }),
      ],
      manifest: { env: { ARCH: 'x86_64' }, structuralKeys: ['ARCH'], claimDependencyMap: {} },
    });
    expect(coldStart.boundary).toEqual({ activeSessionId: 'session-2', boundaryAtMs: NOW - 60_000 });
    const verdict = guard(coldStart);
    expect(verdict.rejectedVariables.map((r) => [r.name, r.reason])).toEqual([
      ['INSTANCE', 'INHERITED_WITHOUT_PREDECESSOR'],
    ]);
  });

  it('refuses a malformed request before it leaves the agent, naming the field', () => {
    expect(() =>
      writeRequest({
        residualId: 'bad id with spaces',
        lineageId: 'lineage-1',
        sessionId: 'session-2',
        generationEpoch: 2,
        payload: null,
        boundaryAtMs: NOW,
        manifest: { env: { A: '1' }, structuralKeys: [], claimDependencyMap: { c: ['A'] } },
      }),
    ).toThrow(
      expect.objectContaining({ name: 'InvalidInputError', issues: [expect.objectContaining({ path: 'residualId' })] }),
    );
  });

  it('docs/triage.md: a causal key absent from the environment snapshot is refused while building the manifest', () => {
    expect(() =>
      writeRequest({
        residualId: 'r',
        lineageId: 'l',
        sessionId: 's',
        generationEpoch: 0,
        payload: 1,
        boundaryAtMs: NOW,
        manifest: { env: { A: '1' }, structuralKeys: [], claimDependencyMap: { c: ['B'] } },
      }),
    ).toThrow(InvalidInputError);
  });

  it('a claim resting on absent keys gives a format-2 manifest the write request schema accepts', () => {
    const input = {
      env: { ARCH: 'x86_64', NODE_VERSION: '20.19.6' },
      structuralKeys: ['ARCH'],
      structuralAbsentKeys: ['LD_PRELOAD'],
      claimDependencyMap: { 'node-build-works': ['NODE_VERSION'], 'no-proxy': { absentKeys: ['HTTP_PROXY'] } },
    };
    const built = writeRequest({
      residualId: 'r',
      lineageId: 'l',
      sessionId: 's',
      generationEpoch: 0,
      payload: 1,
      boundaryAtMs: NOW,
      manifest: input,
    });
    expect(built.manifest).toEqual(buildManifest(input));
    expect(built.manifest).toMatchObject({ formatVersion: 2, absentKeys: ['HTTP_PROXY', 'LD_PRELOAD'] });
    const signed = signWriteSync(built, TEST_WRITER, NOW);
    expect(ResidualWriteRequestSchema.parse(signed)).toEqual(signed);
    expect(() => buildManifest({ ...input, structuralAbsentKeys: ['NODE_VERSION'] })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'structuralAbsentKeys.0' })] }),
    );
  });
});
