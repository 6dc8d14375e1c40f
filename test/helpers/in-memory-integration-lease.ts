import { INTEGRATION_LEASE_MS, type IntegrationLease } from '../../shared/ports/integration-lease';

/**
 * {@link IntegrationLease} in memory, with the DynamoDB adapter's conditions. Its field is open so
 * tests can play the table writer; `takes` counts every attempt, `taken` the ones that won.
 */
export class InMemoryIntegrationLease implements IntegrationLease {
  item: { holder: string; expiresAtMs: number } | null = null;
  takes = 0;
  taken = 0;

  async take(holder: string, nowMs: number, untilMs: number): Promise<boolean> {
    this.takes += 1;
    const free =
      this.item === null || this.item.expiresAtMs <= nowMs || this.item.expiresAtMs > nowMs + INTEGRATION_LEASE_MS;
    if (!free) return false;
    this.item = { holder, expiresAtMs: untilMs };
    this.taken += 1;
    return true;
  }

  async release(holder: string): Promise<void> {
    if (this.item?.holder === holder) this.item = { ...this.item, expiresAtMs: 0 };
  }
}
