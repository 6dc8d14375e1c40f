import type { WitnessStatus } from './witness-response';

/**
 * A request the witness refuses (C2SP tlog-witness `add-checkpoint`), as the value both of its
 * decisions answer with ({@link admitCheckpoint}, {@link decideAddCheckpoint}; docs/witness.md, "Decisions").
 */
export interface WitnessRefusal {
  readonly kind: 'REFUSED';
  readonly status: Exclude<WitnessStatus, 200>;
  /** For people and logs: what was wrong. */
  readonly reason: string;
  /** With 409: the size of the latest checkpoint the witness cosigned for the origin (0: none). */
  readonly currentSize?: number;
}

/** A {@link WitnessRefusal} with `status` and `reason`; `currentSize` with a 409 only. */
export const witnessRefusal = (
  status: WitnessRefusal['status'],
  reason: string,
  currentSize?: number,
): WitnessRefusal =>
  currentSize === undefined ? { kind: 'REFUSED', status, reason } : { kind: 'REFUSED', status, reason, currentSize };
