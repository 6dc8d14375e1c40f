import { isNoticeMacValid } from '../../shared/integrator/notice-mac';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import type { NoticeKeyOpener } from '../../shared/ports/notice-key';
import type { ServiceLogger } from '../common/service-logger';

/**
 * The notices of the batch whose `auth` verifies (docs/deployment-log.md, "Integration", step 2):
 * the data key unwrapped by the notice key (`kms:Decrypt`, which only the integrator holds; each
 * distinct blob once), the MAC compared in constant time. Only these vouch for the head they name;
 * the others stay triggers, checked as ever. Never rejects: a notice whose key cannot be unwrapped,
 * even for a KMS outage (logged at warn), just does not vouch, and its head goes through the
 * head-state MAC. `opener` absent: none vouches.
 */
export async function authenticatedNotices(
  notices: readonly SealedRunNotice[],
  opener: NoticeKeyOpener | null,
  logger: ServiceLogger,
): Promise<readonly SealedRunNotice[]> {
  if (!opener) return [];
  const keys = new Map<string, Promise<Uint8Array | null>>();
  for (const { auth } of notices) {
    if (auth && !keys.has(auth.key)) {
      keys.set(
        auth.key,
        opener.open(auth.key).catch((error: unknown) => {
          logger.warn('a notice data key could not be unwrapped; its notices vouch for no head', { error });
          return null;
        }),
      );
    }
  }
  const checked = await Promise.all(
    notices.map(async (notice) => {
      const key = notice.auth ? await keys.get(notice.auth.key) : null;
      return key ? isNoticeMacValid(notice, key) : false;
    }),
  );
  return notices.filter((_, i) => checked[i]);
}
