import { existsSync } from 'node:fs';

/** Where Debian's `chromium` package (which `npm run setup` installs when run as root) puts the browser. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/**
 * The headless browser the report's browser test drives: `RESEAL_CHROMIUM`, else the first of
 * {@link CANDIDATES} that exists.
 *
 * @throws {Error} naming how to install one when there is none
 */
export function chromiumPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const given = env.RESEAL_CHROMIUM;
  if (given) {
    if (!existsSync(given)) throw new Error(`RESEAL_CHROMIUM=${given}: no such file`);
    return given;
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  throw new Error(
    `no Chromium found (looked for ${CANDIDATES.join(', ')}): the report's browser test needs one. ` +
      "Run `npm run setup` as root (it runs `apt-get install chromium`), install Debian's `chromium` package yourself, " +
      'or set RESEAL_CHROMIUM to a Chromium or Chrome binary.',
  );
}
