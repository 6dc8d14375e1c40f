#!/usr/bin/env node
// Installs the Python package's development environment in .python-venv/ (gitignored): a venv,
// the exact versions of python/requirements-dev.txt (boto3, the `aws` extra of the online client,
// among them), then `reseal` itself editable (docs/python.md).
// Idempotent: a stamp of the requirements and pyproject.toml skips the work when nothing changed.
// Uses only Node built-ins; `PYTHON` names the interpreter (default python3, which must be ≥ 3.10).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PYTHON_VENV = join(root, '.python-venv');
export const VENV_PYTHON = join(PYTHON_VENV, 'bin', 'python');

function run(cmd, args) {
  console.log(`[python-setup] ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`[python-setup] failed: ${cmd} ${args.join(' ')} (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

/** Creates or refreshes .python-venv/ when python/requirements-dev.txt or pyproject.toml changed. */
export function setupPython() {
  const requirements = join(root, 'python', 'requirements-dev.txt');
  const wanted = readFileSync(requirements, 'utf8') + readFileSync(join(root, 'python', 'pyproject.toml'), 'utf8');
  const stamp = join(PYTHON_VENV, 'installed-requirements.txt');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted && existsSync(VENV_PYTHON)) return;
  const python = process.env.PYTHON ?? 'python3';
  const version = spawnSync(python, ['-c', 'import sys; print(sys.version_info >= (3, 10))'], { encoding: 'utf8' });
  if (version.stdout?.trim() !== 'True') {
    console.error(`[python-setup] ${python} is missing or older than Python 3.10; set PYTHON to a newer interpreter`);
    process.exit(1);
  }
  run(python, ['-m', 'venv', '--clear', PYTHON_VENV]);
  const pip = [VENV_PYTHON, '-m', 'pip', 'install', '--disable-pip-version-check', '--progress-bar', 'off'];
  run(pip[0], [...pip.slice(1), '-r', requirements]);
  // Build isolation would fetch hatchling again; the pinned one is already installed.
  run(pip[0], [...pip.slice(1), '--no-deps', '--no-build-isolation', '-e', join(root, 'python')]);
  writeFileSync(stamp, wanted);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) setupPython();
