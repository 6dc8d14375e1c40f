import { NonNegativeInt } from './non-negative-int';

/** Milliseconds since the Unix epoch (UTC): a {@link NonNegativeInt}. */
export const EpochMillis = NonNegativeInt;
