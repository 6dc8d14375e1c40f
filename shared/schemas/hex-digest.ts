import { z } from 'zod';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';

/** SHA-256 digest as 64 lowercase hex characters. */
export const HexDigest = z.string().regex(HEX_DIGEST_PATTERN, 'expected 64 lowercase hex characters (SHA-256)');
