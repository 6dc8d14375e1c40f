import { z } from 'zod';

/** Identifier pattern: 1–200 characters from `A–Z a–z 0–9 . _ : @ / + = -`, starting alphanumeric. */
export const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}$/;

/**
 * Identifier (lineage, residual, session ids): 1–200 characters from `A–Z a–z 0–9 . _ : @ / + = -`,
 * starting alphanumeric: a safe printable alphabet, because identifiers become parts of DynamoDB
 * keys and log fields (docs/canonical-form.md, "Hostile-string policy").
 */
export const Identifier = z.string().regex(IDENTIFIER_PATTERN, 'identifier must be 1–200 chars of [A-Za-z0-9._:@/+=-]');
