/** A time (ms since the Unix epoch) as ISO 8601 UTC, as every tool answers times. */
export const isoTime = (ms: number): string => new Date(ms).toISOString();
