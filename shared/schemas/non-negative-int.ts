import { z } from 'zod';

/** Non-negative safe integer (sequence numbers, epochs). */
export const NonNegativeInt = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
