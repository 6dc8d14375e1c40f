#!/usr/bin/env node
// Installs what `npm test` and `npm run demo` need on a fresh clone, using only Node built-ins
// (it runs before node_modules exists):
//   1. `npm ci` when node_modules is missing or older than package-lock.json;
//   2. the emulator's pinned Python virtual environment (.emulator/venv) unless
//      AWS_ENDPOINT_URL names an endpoint to use instead;
//   3. except for `npm run demo`, which does not use it, the Python package's development
//      environment (.python-venv/, scripts/python-setup.mjs);
//   4. likewise except for the demo, Debian's `chromium` package for the report's browser
//      test, with apt-get when run as root; otherwise it says how to install it.
// Idempotent: a second run with nothing to do finishes in milliseconds.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setupPython } from './python-setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function run(cmd, args, options = {}) {
  console.log(`[setup] ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.error(`[setup] failed: ${cmd} ${args.join(' ')} (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

// 1. Node dependencies, exactly as locked.
const installedMarker = join(root, 'node_modules', '.package-lock.json');
if (mtime(installedMarker) < mtime(join(root, 'package-lock.json'))) {
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

// 2. The emulator, unless the user points at their own endpoint.
if (process.env.AWS_ENDPOINT_URL) {
  console.log(`[setup] AWS_ENDPOINT_URL=${process.env.AWS_ENDPOINT_URL}: using that endpoint, no emulator installed`);
} else {
  const requirements = join(root, 'scripts', 'emulator', 'requirements.txt');
  const venv = join(root, '.emulator', 'venv');
  const stamp = join(root, '.emulator', 'installed-requirements.txt');
  const wanted = readFileSync(requirements, 'utf8');
  const python = process.env.PYTHON ?? 'python3';
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== wanted || !existsSync(join(venv, 'bin', 'python'))) {
    mkdirSync(join(root, '.emulator'), { recursive: true });
    run(python, ['-m', 'venv', '--clear', venv]);
    run(join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', requirements]);
    writeFileSync(stamp, wanted);
  }
}

// `npm run demo` (predemo) needs only steps 1 and 2; `npm test` (pretest), `npm run setup` and a
// direct `node scripts/setup.mjs` install for the tests too.
const forTests = process.env.npm_lifecycle_event !== 'predemo';

// 3. The Python package (python/), tested by `npm test` (docs/python.md).
if (forTests) setupPython();

// 4. Chromium for the browser test of `reseal report` (test/unit/cli/report-page.test.ts).
const chromiumPaths = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
if (forTests && !process.env.RESEAL_CHROMIUM && !chromiumPaths.some((path) => existsSync(path))) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    console.log("[setup] installing Debian's chromium package for the report's browser test");
    run('apt-get', ['update', '-qq'], { env });
    run('apt-get', ['install', '-y', '-qq', 'chromium'], { env });
  } else {
    console.warn(
      "[setup] no Chromium found: the report's browser test will fail. Install Debian's package " +
        '(`sudo apt-get install chromium`), or set RESEAL_CHROMIUM to a Chromium or Chrome binary.',
    );
  }
}
