import { isHeadKeyMacValid } from '../../shared/log/head-key-mac';
import type { HeadState } from '../../shared/log/head-state-mac';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../shared/log/log-state';
import type { NoticeKeyOpener } from '../../shared/ports/notice-key';

/**
 * Whether a stored head's head-key MAC vouches for the state it claims (docs/verifiable-log.md,
 * "Appending"): its blob opens with `opener` and the MAC verifies over exactly that state.
 */
export async function headKeyVouches(
  stored: StoredLogHead,
  lineageId: string,
  opener: NoticeKeyOpener,
): Promise<boolean> {
  const keyMac = stored.headKeyMac;
  if (!keyMac) return false;
  const dataKey = await opener.open(keyMac.keyBlob);
  const state = headStateOf(claimedLogState(stored, lineageId)) as HeadState;
  return dataKey !== null && isHeadKeyMacValid(state, dataKey, keyMac.mac);
}
