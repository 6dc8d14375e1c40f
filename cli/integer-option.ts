import { InvalidArgumentError } from 'commander';

/** Parses a non-negative integer option value, or refuses it as bad input. */
export function integerOption(value: string): number {
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('expected a non-negative integer');
  }
  return Number(value);
}
