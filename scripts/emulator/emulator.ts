/**
 * The embedded LocalStack-compatible emulator (MiniStack, pinned in requirements.txt), or the
 * endpoint the user chose with `AWS_ENDPOINT_URL` (docs/infrastructure.md, "Tests against an emulator").
 *
 * Library: `startEmulator()`. CLI: `npx tsx scripts/emulator/emulator.ts start|stop|status`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkEndpoint } from './check-endpoint';

/** Repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where the venv, logs, pid files and deploy outputs live (git-ignored). */
export const EMULATOR_DIR = join(ROOT, '.emulator');
const MINISTACK_BIN = join(EMULATOR_DIR, 'venv', 'bin', 'ministack');

/**
 * Services the stack and `cdk bootstrap` / `cdk deploy` use, as MiniStack spells them
 * (`monitoring` is CloudWatch; `ecr` is in the bootstrap template; `apigateway` serves the HTTP
 * API of the remote MCP server, v2 included).
 */
export const EMULATOR_SERVICES = [
  'cloudformation',
  's3',
  'ssm',
  'iam',
  'sts',
  'lambda',
  'sqs',
  'dynamodb',
  'kms',
  'events',
  'logs',
  'monitoring',
  'ecr',
  'apigateway',
] as const;

/** A running (or borrowed) endpoint. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:45123`. */
  readonly endpoint: string;
  /** True when this process started MiniStack (and so may reset or patch it). */
  readonly embedded: boolean;
  /** Pid (and process group) of the MiniStack this process started. */
  readonly pid?: number;
  /** Stops what this process started; a no-op for a borrowed endpoint. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startEmulator}. */
export interface StartEmulatorOptions {
  /** How long to wait for the health endpoint. @default 60_000 */
  readonly healthTimeoutMs?: number;
  /** Progress lines. @default console.log with an `[emulator]` prefix */
  readonly log?: (line: string) => void;
  /**
   * The loopback address MiniStack names in the URLs it hands out (queue URLs), on its own port.
   * The emulator bench (bench/stack/) listens there with a counting proxy, so that SDK clients
   * that follow a queue URL (the guard's `SendMessage`) pass through it too.
   * @default '127.0.0.1' (where MiniStack itself listens)
   */
  readonly advertisedHost?: string;
  /**
   * Start MiniStack with `AUTH=true`: it then checks SigV4 signatures and evaluates IAM (identity
   * policies, SQS queue and KMS key policies; functions run as their execution roles' sessions).
   * @default false (every signed request is let through, as the integration tests run)
   */
  readonly auth?: boolean;
}

/**
 * Starts the emulator, or borrows `AWS_ENDPOINT_URL` when set (then starts nothing).
 *
 * MiniStack runs from `.emulator/venv` (created by `node scripts/setup.mjs` if missing) on a free
 * 127.0.0.1 port in its own process group, logging to `.emulator/ministack-<port>.log`, with a pid
 * file beside it. It is stopped by `stop()`, and also when this process exits or gets SIGINT/SIGTERM.
 *
 * @throws {Error} when the health endpoint does not answer before the deadline (the log tail is in the message)
 */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  const log = options.log ?? ((line: string) => console.log(`[emulator] ${line}`));
  const borrowed = process.env.AWS_ENDPOINT_URL;
  if (borrowed) {
    const endpoint = checkEndpoint(borrowed);
    log(`AWS_ENDPOINT_URL=${endpoint}: using it, starting nothing`);
    await waitForHealth(endpoint, options.healthTimeoutMs ?? 60_000, () => undefined);
    return { endpoint, embedded: false, stop: async () => undefined };
  }

  if (!existsSync(MINISTACK_BIN)) {
    log('no .emulator/venv: running node scripts/setup.mjs');
    const setup = spawnSync(process.execPath, [join(ROOT, 'scripts', 'setup.mjs')], { cwd: ROOT, stdio: 'inherit' });
    if (setup.status !== 0 || !existsSync(MINISTACK_BIN)) {
      throw new Error(`scripts/setup.mjs failed (exit ${setup.status}); ${MINISTACK_BIN} is missing`);
    }
  }

  mkdirSync(EMULATOR_DIR, { recursive: true });
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const logFile = join(EMULATOR_DIR, `ministack-${port}.log`);
  const pidFile = join(EMULATOR_DIR, `ministack-${port}.pid`);
  const { AWS_ENDPOINT_URL: _ignored, ...hostEnv } = process.env;
  const logFd = openSync(logFile, 'w');
  const child = spawn(MINISTACK_BIN, [], {
    cwd: EMULATOR_DIR,
    detached: true, // own process group: stop() signals the group, so hypercorn workers and function runtimes go too
    stdio: ['ignore', logFd, logFd],
    env: {
      ...hostEnv,
      BIND_HOST: '127.0.0.1',
      GATEWAY_PORT: String(port),
      IOT_MTLS_ENABLED: '0',
      SERVICES: EMULATOR_SERVICES.join(','),
      MINISTACK_REGION: 'us-east-1',
      // Queue URLs name this host; the default "localhost" may resolve to ::1, where nothing listens.
      MINISTACK_HOST: options.advertisedHost ?? '127.0.0.1',
      AUTH: options.auth === true ? 'true' : 'false',
    },
  });
  closeSync(logFd);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${MINISTACK_BIN}`);
  writeFileSync(pidFile, `${pid}\n`);
  log(`MiniStack pid ${pid} on ${endpoint}, log ${logFile}`);

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      removeExitHooks();
      await killGroup(pid, child);
      rmSync(pidFile, { force: true });
      log(`MiniStack pid ${pid} stopped`);
    })();
    return stopped;
  };
  const removeExitHooks = installExitHooks(pid, pidFile, stop);

  try {
    await waitForHealth(endpoint, options.healthTimeoutMs ?? 60_000, () =>
      child.exitCode !== null ? `MiniStack exited with code ${child.exitCode}` : undefined,
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- ${logFile} (tail) ---\n${tail(logFile, 40)}`, { cause: error });
  }
  log(`MiniStack healthy on ${endpoint}`);
  return { endpoint, embedded: true, pid, stop };
}

/** A port the kernel just handed out on 127.0.0.1 (free at the time of asking). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Polls `<endpoint>/_localstack/health` until it answers 200 or the deadline passes. */
async function waitForHealth(endpoint: string, timeoutMs: number, died: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const death = died();
    if (death) throw new Error(death);
    try {
      const response = await fetch(`${endpoint}/_localstack/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${endpoint}/_localstack/health did not answer within ${timeoutMs} ms (${last})`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the process group, then SIGKILL after a grace period. */
async function killGroup(pid: number, child?: ChildProcess, graceMs = 5_000): Promise<void> {
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // group already gone
    }
  };
  const exited = () => (child ? child.exitCode !== null || child.signalCode !== null : !isAlive(pid));
  signalGroup('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (!exited() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  // The leader may be gone while children it spawned (function runtimes) linger: kill what is left.
  signalGroup('SIGKILL');
}

/** Stops the group on exit, Ctrl-C or SIGTERM. Returns a function that removes the hooks. */
function installExitHooks(pid: number, pidFile: string, stop: () => Promise<void>): () => void {
  const onExit = () => {
    // Synchronous last resort: no awaiting inside an 'exit' handler.
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(pidFile, { force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Pid files this checkout's embedded emulators left in `.emulator/`, by port. */
function pidFiles(): { port: number; pid: number; file: string }[] {
  if (!existsSync(EMULATOR_DIR)) return [];
  return readdirSync(EMULATOR_DIR)
    .map((name) => /^ministack-(\d+)\.pid$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const file = join(EMULATOR_DIR, m[0]);
      return { port: Number(m[1]), pid: Number(readFileSync(file, 'utf8').trim()), file };
    });
}

async function cli(command: string | undefined): Promise<void> {
  switch (command) {
    case 'start': {
      const emulator = await startEmulator();
      console.log(`export AWS_ENDPOINT_URL=${emulator.endpoint}`);
      console.log('MiniStack keeps running until Ctrl-C (or `emulator.ts stop` from another shell).');
      // The exit hooks stop it on Ctrl-C; if it is stopped from elsewhere, leave too.
      const pid = emulator.pid as number;
      await new Promise<void>((done) => {
        const timer = setInterval(() => {
          if (!isAlive(pid)) {
            clearInterval(timer);
            done();
          }
        }, 1_000);
      });
      console.log('MiniStack is gone; exiting');
      return;
    }
    case 'stop': {
      const found = pidFiles();
      if (found.length === 0) console.log('no embedded emulator is running (no pid file in .emulator/)');
      for (const { port, pid, file } of found) {
        if (isAlive(pid)) await killGroup(pid);
        rmSync(file, { force: true });
        console.log(`stopped MiniStack pid ${pid} (port ${port})`);
      }
      return;
    }
    case 'status': {
      const found = pidFiles();
      if (found.length === 0) console.log('no embedded emulator is running');
      for (const { port, pid } of found) {
        console.log(
          `MiniStack pid ${pid} on http://127.0.0.1:${port}: ${isAlive(pid) ? 'running' : 'not running (stale pid file)'}`,
        );
      }
      return;
    }
    default:
      console.error('usage: npx tsx scripts/emulator/emulator.ts start|stop|status');
      process.exitCode = 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli(process.argv[2]).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
