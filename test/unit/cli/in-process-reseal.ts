/**
 * The `reseal` package as docs/cli.md's client example imports it, with `connectToStack` over the
 * whole pipeline in process (the real guard, sealer and triage functions on one in-memory table,
 * with the pinned test keys) instead of a deployed stack, so a unit test can run the example as
 * written. Everything else is the package's own export. Relative `FileCheckpointStore` and
 * `writerKeyFile` paths are resolved against the directory the test chose, as the example's are
 * against its project.
 */
import { isAbsolute, join } from 'node:path';
import type { ConnectOptions, StackConnection } from '../../../client/connect';
import { FileCheckpointStore as PackageFileCheckpointStore } from '../../../client/file-checkpoint-store';
import { writerKeyFile as packageWriterKeyFile } from '../../../client/writer-key-file';
import type { LocalWriterSigner } from '../../../shared/authorship/local-writer-signer';
import type { TriageCompletedDetail } from '../../../shared/pipeline/triage-completed-detail';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { inProcessStack } from '../../helpers/in-process-stack';

export * from '../../../client/index';

/** How the in-process stack behaves. */
export interface InProcessStackOptions {
  /** Where relative checkpoint store paths lead (the example's project directory). */
  readonly dir: string;
  /** Rewrites each triage answer after triage stored it, as a table writer could. */
  readonly forgeAnswer?: (answer: TriageCompletedDetail) => TriageCompletedDetail;
}

let stack: (InProcessStackOptions & { readonly store: InMemoryLineageStore; readonly clock: { now: number } }) | null =
  null;

/** Starts a fresh in-process stack (one table, kept across runs until the next call). */
export function startInProcessStack(options: InProcessStackOptions): InMemoryLineageStore {
  const store = new InMemoryLineageStore();
  stack = { ...options, store, clock: { now: Date.now() } };
  return store;
}

/** The package's `FileCheckpointStore`, a relative path resolved against the stack's directory. */
export class FileCheckpointStore extends PackageFileCheckpointStore {
  constructor(path: string) {
    if (!stack) throw new Error('startInProcessStack first');
    super(isAbsolute(path) ? path : join(stack.dir, path));
  }
}

/** The package's `writerKeyFile`, a relative path resolved against the stack's directory. */
export function writerKeyFile(path: string): Promise<LocalWriterSigner> {
  if (!stack) throw new Error('startInProcessStack first');
  return packageWriterKeyFile(isAbsolute(path) ? path : join(stack.dir, path));
}

/** `connectToStack` over the in-process stack: the options the example passes are honoured. */
export async function connectToStack(options: ConnectOptions = {}): Promise<StackConnection> {
  if (!stack) throw new Error('startInProcessStack first');
  const { store, clock, forgeAnswer } = stack;
  const { client, anchor } = inProcessStack({
    store,
    clock,
    ...(forgeAnswer ? { forgeAnswer } : {}),
    ...(options.checkpointStore ? { checkpointStore: options.checkpointStore } : {}),
    ...(options.writer ? { writer: options.writer } : {}),
  });
  return { client, outputs: TEST_CLIENT_OUTPUTS, store, anchor };
}
