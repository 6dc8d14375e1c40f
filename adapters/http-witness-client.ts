import type { WitnessClient } from '../shared/ports/witness-client';

/** How long one `add-checkpoint` request may take before the witness counts as unreachable. */
export const WITNESS_TIMEOUT_MS = 5_000;

/**
 * {@link WitnessClient} over HTTP (C2SP tlog-witness, docs/witness.md "add-checkpoint"): `POST
 * <url>add-checkpoint` with the request body, answered with the status and body as received.
 *
 * @param url - the witness's submission prefix (its policy URL, ending in `/`)
 */
export class HttpWitnessClient implements WitnessClient {
  readonly #url: string;
  readonly #timeoutMs: number;

  constructor(url: string, timeoutMs = WITNESS_TIMEOUT_MS) {
    this.#url = url.endsWith('/') ? url : `${url}/`;
    this.#timeoutMs = timeoutMs;
  }

  async addCheckpoint(body: string): Promise<{ status: number; body: string }> {
    return this.#post('add-checkpoint', body);
  }

  /** `POST <url>re-anchor` (docs/witness.md, "re-anchor"). */
  async reAnchor(body: string): Promise<{ status: number; body: string }> {
    return this.#post('re-anchor', body);
  }

  async #post(path: string, body: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`${this.#url}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    return { status: response.status, body: await response.text() };
  }
}
