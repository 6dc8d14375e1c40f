import { describe, expect, it } from 'vitest';
import { tenantIdsFrom } from '../../../../functions/triage/tenant-ids';

describe('TENANT_IDS of the triage function (docs/triage.md, "Tenants")', () => {
  it('unset or empty: one tenant (no scoping); else the set of tenant ids', () => {
    expect(tenantIdsFrom(undefined)).toBeUndefined();
    expect(tenantIdsFrom('')).toBeUndefined();
    expect(tenantIdsFrom('["acme","beta"]')).toEqual(new Set(['acme', 'beta']));
  });

  it('refuses a value that is not a list of tenant ids, naming the variable (the function does not start)', () => {
    for (const bad of ['acme', '[]', '["Acme"]', '{"acme":1}']) {
      expect(() => tenantIdsFrom(bad)).toThrow(/TENANT_IDS/);
    }
  });
});
