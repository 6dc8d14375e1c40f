import { INTEGRATION_LEASE_MS, type IntegrationLease, LEASE_CLOCK_SKEW_MS } from '../../shared/ports/integration-lease';

/**
 * {@link IntegrationLease} in memory, with the DynamoDB adapter's conditions. Its field is open so
 * tests can play the table writer; `takes` counts every attempt, `taken` the ones that won.
 */
export class InMemoryIntegrationLease implements IntegrationLease {
  item: { holder: string; expiresAtMs: unknown } | null = null;
  takes = 0;
  taken = 0;

  async take(holder: string, nowMs: number, untilMs: number): Promise<boolean> {
    this.takes += 1;
    const expires = this.item?.expiresAtMs;
    const free =
      this.item === null ||
      typeof expires !== 'number' ||
      expires <= nowMs ||
      expires > nowMs + INTEGRATION_LEASE_MS + LEASE_CLOCK_SKEW_MS;
    if (!free) return false;
    this.item = { holder, expiresAtMs: untilMs };
    this.taken += 1;
    return true;
  }

  async release(holder: string): Promise<void> {
    if (this.item?.holder === holder) this.item = { ...this.item, expiresAtMs: 0 };
  }
}
