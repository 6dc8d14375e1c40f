/**
 * Submits checkpoints to one witness over C2SP tlog-witness (docs/witness.md, "add-checkpoint").
 * Adapter: `HttpWitnessClient` (adapters/), a `fetch` of `<url>add-checkpoint`.
 */
export interface WitnessClient {
  /**
   * POSTs the request body and returns the status and body as received. Rejects only when no
   * answer came (network, time-out): the integrator then publishes nothing new (fail closed).
   */
  addCheckpoint(body: string): Promise<{ readonly status: number; readonly body: string }>;
  /**
   * POSTs a re-anchor request body (docs/witness.md, "re-anchor") and returns the status and body
   * as received; optional, for a witness that takes none. Rejects only when no answer came.
   */
  reAnchor?(body: string): Promise<{ readonly status: number; readonly body: string }>;
}
