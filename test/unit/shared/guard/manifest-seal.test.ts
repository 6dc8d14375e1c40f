import { describe, expect, it } from 'vitest';
import { InvalidInputError, ManifestSealMismatchError } from '../../../../shared/errors';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { compositeSeal } from '../../../../shared/triage/composite-seal';
import { isolateDelta } from '../../../../shared/triage/isolate-delta';
import { ResidualWriteRequestSchema } from '../../../../shared/write/write-request';
import { guardPolicy, validWriteRequest } from '../../../helpers/guard-factories';

const OTHER_SEAL = 'b'.repeat(64);

/** A valid request whose manifest's preconditionSeal is not the seal of its own key hashes. */
function corruptSealRequest() {
  const request = validWriteRequest();
  expect(Object.keys(request.manifest.baselineKeyHashes).length).toBeGreaterThan(0);
  expect(request.manifest.preconditionSeal).not.toBe(OTHER_SEAL);
  return { ...request, manifest: { ...request.manifest, preconditionSeal: OTHER_SEAL } };
}

describe('guard: a manifest must carry the seal of its own key hashes (else it could never be triaged)', () => {
  it('the factory manifest is self-consistent and accepted', () => {
    const request = validWriteRequest();
    expect(request.manifest.preconditionSeal).toBe(compositeSeal(request.manifest.baselineKeyHashes));
    expect(ResidualWriteRequestSchema.safeParse(request).success).toBe(true);
  });

  it('a preconditionSeal other than compositeSeal(baselineKeyHashes) is invalid input at manifest.preconditionSeal', () => {
    const result = ResidualWriteRequestSchema.safeParse(corruptSealRequest());
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['manifest.preconditionSeal']);
    expect(result.error?.issues[0]?.message).toContain('compositeSeal(baselineKeyHashes)');
  });

  it('evaluateWrite throws InvalidInputError naming manifest.preconditionSeal, never a verdict', () => {
    let thrown: unknown = null;
    try {
      evaluateWrite(corruptSealRequest(), guardPolicy());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect((thrown as InvalidInputError).issues.map((i) => i.path)).toEqual(['manifest.preconditionSeal']);
  });

  it('an empty baselineKeyHashes keeps an opaque seal (nothing to check it against)', () => {
    const request = validWriteRequest();
    const manifest = { ...request.manifest, baselineKeyHashes: {}, claimDependencyMap: {}, structuralKeys: [] };
    const result = ResidualWriteRequestSchema.safeParse({
      ...request,
      manifest: { ...manifest, preconditionSeal: OTHER_SEAL },
    });
    expect(result.success).toBe(true);
  });

  it('triage keeps its own check: isolateDelta still throws ManifestSealMismatchError', () => {
    const { manifest } = corruptSealRequest();
    expect(() => isolateDelta(manifest, {})).toThrow(ManifestSealMismatchError);
  });
});
