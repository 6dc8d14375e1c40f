#!/usr/bin/env node
// `npm run test:python` (part of `npm test`): sets up .python-venv/ if needed, then runs the
// Python package's tests (python/tests/) with pytest. Extra arguments go to pytest. The online
// tests (python/tests/online/) start the emulator and deploy the stack once per run, through the
// same scripts as the TypeScript integration tests (scripts/emulator/).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setupPython, VENV_PYTHON } from './python-setup.mjs';

setupPython();
const cwd = join(dirname(fileURLToPath(import.meta.url)), '..', 'python');
const args = ['-m', 'pytest', '-q', '-rfE', ...process.argv.slice(2)];
console.log(`[python-test] (cd python && .python-venv/bin/python ${args.join(' ')})`);
const result = spawnSync(VENV_PYTHON, args, { cwd, stdio: 'inherit' });
if (result.status !== 0) {
  console.error(
    `[python-test] the Python tests failed (pytest exit ${result.status ?? result.signal}); rerun with: npm run test:python -- -x`,
  );
}
process.exit(result.status ?? 1);
