/**
 * Refuses a count of billable units the cost model cannot price: a negative or non-finite number
 * (docs/infrastructure.md, "Cost and quotas"). `what` names the count in the message
 * (`usage.kmsSymmetricRequest`, `resources.kmsKeyMonth`).
 *
 * @throws {RangeError} for a negative or non-finite `value`
 */
export function checkUnits(what: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${what} must be a finite number ≥ 0, got ${value}`);
  }
}
