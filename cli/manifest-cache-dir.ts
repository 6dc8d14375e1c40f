import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_MANIFEST_CACHE_DIR, MANIFEST_CACHE_ENV, NO_MANIFEST_CACHE } from '../client/file-manifest-cache';
import type { CliIo } from './io';

/**
 * The directory where this run keeps the manifests it proved (docs/cli.md, "Kept manifests"):
 * `RESEAL_MANIFEST_CACHE` when set, else `.reseal/manifests` under the working directory, as the
 * stack pin is found; `null` when it is `none` (every recall then reads its manifest item).
 */
export function manifestCacheDir(io: CliIo): string | null {
  const named = io.env[MANIFEST_CACHE_ENV];
  if (named === NO_MANIFEST_CACHE) return null;
  const path = named || DEFAULT_MANIFEST_CACHE_DIR;
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}
