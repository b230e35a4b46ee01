import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { lockPathOf } from '../../infra/db/directoryLock.js';
import type { TestResponse, TestService } from '../support/testService.js';

/** Fault tests drive the service as an operator does: as a child process, from outside. */

const bindable = async (port: number): Promise<boolean> => {
  const s = createServer();
  s.listen(port, '127.0.0.1');
  const [outcome] = await Promise.race([once(s, 'listening').then(() => ['listening']), once(s, 'error')]);
  if (outcome !== 'listening') return false;
  s.close();
  await once(s, 'close');
  return true;
};

/**
 * A port for a child service to listen on, picked at random below Linux's ephemeral range (32768 and
 * up): the port the OS hands to a `listen(0)` or an outgoing connection comes from that range, so
 * between this pick and the child's bind no test service or client socket takes it; only another
 * random pick could, one chance in 12 000.
 */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
};

export interface ChildService {
  child: ChildProcessWithoutNullStreams;
  port: number;
  output(): string;
  exited: Promise<number | null>;
  /** What actors.ts and orderFlows.ts need of a service: requests by path. */
  client: TestService;
}

export const TEST_ENV = {
  APP_ENV: 'test',
  HOST: '127.0.0.1',
  METRICS_PORT: '0',
  LOG_LEVEL: 'info',
  PROJECTION_POLL_MS: '50',
  ADMIN_BOOTSTRAP_EMAIL: 'root@test.local',
  ADMIN_BOOTSTRAP_PASSWORD: 'root-password-123',
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef',
  OFFICIAL_RATE_VES: '36.5',
};

export const request = async <T = any>(
  baseUrl: string,
  method: string,
  path: string,
  { token, body, headers }: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<TestResponse<T>> => {
  const res = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the test sees the text.
  }
  return { status: res.status, body: parsed as any, headers: res.headers };
};

/**
 * Spawns the service: `command` is the argv (default: the `npm start` command line without npm). The
 * environment is only what is given here, so the test runner's DATABASE_URL or NATS_URL never leaks in.
 */
export const spawnService = (
  env: Record<string, string>,
  command: string[] = [process.execPath, '--import', 'tsx', 'app/main.ts'],
): ChildService & { port: number } => {
  const port = Number(env.PORT);
  const child = spawn(command[0], command.slice(1), {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...TEST_ENV, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = {
    baseUrl,
    port,
    request: (method: string, path: string, options?: { token?: string; body?: unknown }) =>
      request(baseUrl, method, path, options),
  } as unknown as TestService;
  return { child, port, output: () => output, exited, client };
};

/**
 * A directory for an embedded cluster: open to the `postgres` user that the cluster runs as under root
 * (mkdtemp makes it private to us).
 */
export const embeddedDataDir = (prefix: string): string => {
  const root = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(root, 0o755);
  return join(root, 'data');
};

/** The postmaster's pid from an embedded cluster's postmaster.pid (its first line), or NaN when there is none. */
export const postmasterPidOf = (dir: string): number => {
  try {
    return Number.parseInt(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n', 1)[0], 10);
  } catch {
    return Number.NaN;
  }
};

/** Alive and not a zombie waiting for its reaper (a killed postmaster whose parent is gone). */
export const runningNotZombie = (pid: number): boolean => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * Removes an embedded cluster's directory and its lock, first stopping the postmaster that a SIGKILLed
 * service left running on it (its postmaster.pid): no test leaves a PostgreSQL behind.
 */
export const removeEmbeddedDir = async (dir: string): Promise<void> => {
  const pid = postmasterPidOf(dir);
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGQUIT');
      for (;;) {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 50));
      }
    } catch {
      // Gone.
    }
  }
  rmSync(dirname(dir), { recursive: true, force: true });
  rmSync(lockPathOf(dir), { force: true });
};

export const waitUntil = async (
  what: string | (() => string),
  probe: () => Promise<boolean>,
  timeoutMs = 120_000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
};

/**
 * Whether a child's log says that it serves on `port`. A port was free when picked, but another process
 * may bind it first (the suite starts hundreds of services): its /health must not pass for the child's.
 */
export const startedOn = (output: string, port: number) =>
  output.split('\n').some((line) => line.includes('"msg":"service started"') && line.includes(`"port":${port},`));

/** Until the child itself logs that it serves on its port, and /health answers there. */
export const waitForHealth = (s: ChildService, timeoutMs?: number) =>
  waitUntil(
    () => `health of the service on :${s.port}\n${s.output().slice(-2000)}`,
    async () => startedOn(s.output(), s.port) && (await fetch(`http://127.0.0.1:${s.port}/health`)).ok,
    timeoutMs,
  );

/**
 * A TCP hop between the service and a server (PostgreSQL, NATS) that can play the server going away: `down()` cuts
 * every session and refuses new ones (a stopped or restarting server), `up()` lets them through again. The
 * shared server itself is never touched.
 */
export const outageProxy = async (target: { host: string; port: number }) => {
  let up = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    if (!up) return inbound.destroy();
    const outbound = connect(target.port, target.host);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    down() {
      up = false;
      for (const s of sockets) s.destroy();
    },
    up() {
      up = true;
    },
    async close() {
      this.down();
      server.close();
      await once(server, 'close');
    },
  };
};
