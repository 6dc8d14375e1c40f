import { describe, expect, it } from 'vitest';
import * as core from '../../../shared/index';

// The import rules of shared/ (the pure core: no AWS, no cycle, layered) are in
// test/unit/repository/layers.test.ts.
describe('reseal/core: the barrel of the pure domain core', () => {
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
