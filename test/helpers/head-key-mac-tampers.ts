import { type HeadKeyMac, headKeyMac } from '../../shared/log/head-key-mac';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../shared/log/log-state';
import { MemoryNoticeKey } from './memory-notice-key';

/** A lineage head a tamper edits: its head-key MAC, another lineage's, and an older one of its own. */
export interface HeadKeyMacTarget {
  /** The head item of `lineageId` as stored now. */
  readonly head: (lineageId: string) => StoredLogHead;
  /** The lineage's head-key MAC as stored now. */
  readonly keyMacOf: (lineageId: string) => HeadKeyMac;
  /** Stores `keyMac` (or none) on the attacked lineage's head. */
  readonly setKeyMac: (keyMac: HeadKeyMac | null) => void;
  /** The attacked lineage's head item before its last write. */
  readonly older: StoredLogHead;
}

/** One edit of a head-key MAC by the table writer, as the guarantee row names it (`attack`). */
export interface HeadKeyMacTamper {
  /** The test's title. */
  readonly name: string;
  /** The guarantee row's attack. */
  readonly attack: string;
  /** Edits `target`'s head `attacked`, with `other` another lineage of the same table. */
  readonly apply: (target: HeadKeyMacTarget, attacked: string, other: string) => Promise<void>;
}

const flip = (bytes: Uint8Array, at: number) => {
  const copy = Uint8Array.from(bytes);
  copy[at] = (copy[at] as number) ^ 1;
  return copy;
};

/**
 * The table writer's edits of a head-key MAC (docs/verifiable-log.md, "Appending"), shared by
 * every reader that authenticates heads by one (the sealer, the integrator): each must leave the
 * head vouched for by nothing. He holds no data key: none of them is a MAC he could make.
 */
export const HEAD_KEY_MAC_TAMPERS: readonly HeadKeyMacTamper[] = [
  {
    name: 'the MAC edited (one bit)',
    attack: 'edit headKeyMac',
    apply: async (t, attacked) => {
      const keyMac = t.keyMacOf(attacked);
      t.setKeyMac({ ...keyMac, mac: flip(keyMac.mac, 0) });
    },
  },
  {
    name: 'the wrapped data key edited (one bit): it opens to nothing',
    attack: 'edit headDataKey',
    apply: async (t, attacked) => {
      const keyMac = t.keyMacOf(attacked);
      // The last byte: a blob's leading bytes may be ignored by the emulator's KMS, never its tag.
      const blob = Buffer.from(keyMac.keyBlob, 'base64');
      t.setKeyMac({ ...keyMac, keyBlob: Buffer.from(flip(blob, blob.length - 1)).toString('base64') });
    },
  },
  {
    name: "another lineage's headKeyMac and headDataKey copied onto the head",
    attack: "copy another lineage's headKeyMac and headDataKey onto the head",
    apply: async (t, _attacked, other) => t.setKeyMac(t.keyMacOf(other)),
  },
  {
    name: "an older head's headKeyMac and headDataKey of the same lineage copied onto the head",
    attack: "copy an older head's headKeyMac and headDataKey (same lineage) onto the head",
    apply: async (t) => t.setKeyMac(t.older.headKeyMac as HeadKeyMac),
  },
  {
    name: 'a genuine MAC of the head under a data key of another notice key (or another encryption context): it opens to nothing',
    attack: 'headKeyMac under a data key the notice key did not wrap (another key or context)',
    apply: async (t, attacked) => {
      const foreign = await new MemoryNoticeKey().dataKey();
      const state = headStateOf(claimedLogState(t.head(attacked), attacked));
      if (state === null) throw new Error('empty head');
      t.setKeyMac({ mac: headKeyMac(state, foreign.plaintext), keyBlob: foreign.blob });
    },
  },
  {
    name: 'the MAC stripped (no headKeyMac, no headMac)',
    attack: 'strip headKeyMac',
    apply: async (t) => t.setKeyMac(null),
  },
];
