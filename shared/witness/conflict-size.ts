/**
 * The size a 409 body of `add-checkpoint` states (`conflictResponse` in witness-response.ts;
 * docs/witness.md, "add-checkpoint"), or `null` when the body is not `<decimal>\n`. For the log
 * side (the integrator), which retries from that size.
 */
export function parseConflictSize(body: string): number | null {
  if (!/^(?:0|[1-9][0-9]{0,15})\n$/.test(body)) return null;
  const size = Number(body.slice(0, -1));
  return Number.isSafeInteger(size) ? size : null;
}
