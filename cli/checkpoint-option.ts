import { InvalidArgumentError } from 'commander';
import type { TrustedHead } from '../shared/seal/trusted-head';

/**
 * Parses `--checkpoint SEQ:RECORD_HASH` (a head the caller kept: from `publish --wait`, an earlier
 * verification, or a `ResidualSealed` event, one run's `seq` and `recordHash`, `sealedRunHead`,
 * as trustworthy as the bus's publishers), e.g. `4:3f…` with 64 lowercase hex characters.
 */
export function checkpointOption(value: string): TrustedHead {
  const match = /^(\d{1,16}):([0-9a-f]{64})$/.exec(value.trim());
  const seq = match ? Number(match[1]) : Number.NaN;
  if (!match || !Number.isSafeInteger(seq)) {
    throw new InvalidArgumentError('expected SEQ:RECORD_HASH, e.g. 4:<64 lowercase hex characters>');
  }
  return { seq, recordHash: match[2] as string };
}
