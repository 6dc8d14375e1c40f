/**
 * KMS `Sign` calls told apart by signer, from the request bodies the functions' counting proxy
 * sees (bench/stack/counting-proxy.ts, `observe`): the log key's signatures split by what they
 * sign (a deployment checkpoint of origin `reseal/<stack>`: the integrator; a lineage checkpoint,
 * origin `reseal/<stack>/<lineage>`: the sealer; anything else: `log key (other)`, which no
 * function should sign), the sealer key's and the guard key's (refusals) and the witness key's
 * (cosignatures). docs/deployment-log.md, "Freshness window and
 * interval", counts these per write.
 */

/** Who signed. */
export type Signer =
  | 'integrator (deployment checkpoint)'
  | 'sealer (lineage checkpoint)'
  | 'log key (other)'
  | 'sealer (refusals)'
  | 'guard (refusals)'
  | 'witness (cosignature)'
  | 'other key';

/** The keys the bench tells apart (ARNs as the stack outputs name them). */
export interface SignKeys {
  readonly logKeyArn: string;
  /** The log's key name, `reseal/<stackName>`: the deployment log's origin. */
  readonly logName: string;
  readonly guardKeyArn: string;
  /** The sealer key (its refusals; docs/verifiable-log.md, "Keys"). */
  readonly sealerKeyArn: string;
  /** `null` until the witness stack is deployed. */
  witnessKeyArn: string | null;
}

/** The key id at the end of an ARN, or the text itself (KMS takes both). */
const keyIdOf = (arnOrId: string): string => arnOrId.split('/').pop() ?? arnOrId;

/** Counts of `Sign` by {@link Signer}; read as differences between snapshots. */
export class SignTally {
  readonly #keys: SignKeys;
  readonly #counts = new Map<Signer, number>();

  constructor(keys: SignKeys) {
    this.#keys = keys;
  }

  /** The proxy's `observe` hook: counts a KMS `Sign` request, ignores every other call. */
  observe(service: string, operation: string, body: Buffer): void {
    if (service !== 'KMS' || operation !== 'Sign') return;
    let request: { KeyId?: unknown; Message?: unknown };
    try {
      request = JSON.parse(body.toString('utf8')) as typeof request;
    } catch {
      this.#add('other key');
      return;
    }
    this.#add(this.classify(String(request.KeyId ?? ''), String(request.Message ?? '')));
  }

  /** Which signer a `Sign` of `keyId` over base64 `message` is. */
  classify(keyId: string, message: string): Signer {
    const id = keyIdOf(keyId);
    const { logKeyArn, logName, guardKeyArn, sealerKeyArn, witnessKeyArn } = this.#keys;
    if (witnessKeyArn !== null && id === keyIdOf(witnessKeyArn)) return 'witness (cosignature)';
    if (id === keyIdOf(guardKeyArn)) return 'guard (refusals)';
    if (id === keyIdOf(sealerKeyArn)) return 'sealer (refusals)';
    if (id !== keyIdOf(logKeyArn)) return 'other key';
    const origin = Buffer.from(message, 'base64').toString('utf8').split('\n', 1)[0] ?? '';
    if (origin === logName) return 'integrator (deployment checkpoint)';
    if (origin.startsWith(`${logName}/`)) return 'sealer (lineage checkpoint)';
    return 'log key (other)';
  }

  #add(signer: Signer): void {
    this.#counts.set(signer, (this.#counts.get(signer) ?? 0) + 1);
  }

  /** A copy of the counts now. */
  snapshot(): ReadonlyMap<Signer, number> {
    return new Map(this.#counts);
  }
}

/** The counts of `after` minus those of `before`, by signer (signers with none left out). */
export function signsSince(
  after: ReadonlyMap<Signer, number>,
  before: ReadonlyMap<Signer, number>,
): ReadonlyMap<Signer, number> {
  const out = new Map<Signer, number>();
  for (const [signer, count] of after) {
    const n = count - (before.get(signer) ?? 0);
    if (n > 0) out.set(signer, n);
  }
  return out;
}
