import { WitnessService } from '../../functions/witness/witness-service';
import { formatVerifierKey, type NoteVerifierKey } from '../../shared/log/note-key';
import type { NoteSigner } from '../../shared/ports/note-signer';
import type { WitnessClient } from '../../shared/ports/witness-client';
import { formatCosignerKey } from '../../shared/witness/cosigner-key';
import { parsePolicy, type TlogPolicy } from '../../shared/witness/tlog-policy';
import { parseTrustedLogs } from '../../shared/witness/trusted-logs';
import { fakeLogger } from './factories';
import { InMemoryWitnessStore } from './in-memory-witness-store';
import { TEST_LOG_KEY } from './pipeline-keys';
import { testCosignerKey, testWitnessSigner } from './witness-factories';

/** The C2SP tlog-policy text of the test stack, witnessed: its log key, the test witness as `w1`, `quorum w1`. */
export async function witnessedStackPolicyText(): Promise<string> {
  return `log ${formatVerifierKey(TEST_LOG_KEY)}\nwitness w1 ${formatCosignerKey(await testCosignerKey())}\nquorum w1\n`;
}

/** How an {@link inProcessWitness} differs from the default. */
export interface InProcessWitnessOptions {
  /** Milliseconds since the epoch, the witness's clock. */
  readonly clock: () => number;
  /** The witness key; default {@link testWitnessSigner}. */
  readonly signer?: NoteSigner;
  /** The operator's recovery keys the witness accepts re-anchors under (docs/witness.md); default none. */
  readonly recoveryKeys?: readonly NoteVerifierKey[];
}

/**
 * The real witness service (docs/witness.md) on an in-memory store, trusting the test stack's
 * log key: `client` calls it in process as an integrator's witness client would over HTTP, and
 * `policyText` / `policy` are the witnessed policy it satisfies ({@link witnessedStackPolicyText}).
 */
export async function inProcessWitness(options: InProcessWitnessOptions): Promise<{
  readonly store: InMemoryWitnessStore;
  readonly service: WitnessService;
  readonly client: Required<WitnessClient>;
  readonly policyText: string;
  readonly policy: TlogPolicy;
}> {
  const store = new InMemoryWitnessStore();
  const service = new WitnessService({
    store,
    signer: options.signer ?? testWitnessSigner(),
    trusted: parseTrustedLogs(formatVerifierKey(TEST_LOG_KEY)),
    logger: fakeLogger(),
    clock: options.clock,
    ...(options.recoveryKeys ? { recoveryKeys: options.recoveryKeys } : {}),
  });
  const policyText = await witnessedStackPolicyText();
  const client = {
    addCheckpoint: async (body: string) => service.addCheckpoint(body),
    reAnchor: async (body: string) => service.reAnchor(body),
  };
  return { store, service, client, policyText, policy: parsePolicy(policyText) };
}
