import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_SUPER_ADMIN, type TestService } from '../support/testService.js';

/**
 * The service as an app meets it: a process of its own (or one per role), started with `node --import
 * tsx app/main.ts` and a probe that counts its SQL statements, driven over HTTP. CPU is read from /proc:
 * the service's processes, and the PostgreSQL backends serving its database.
 */

/**
 * The build to measure: this checkout, or BENCH_ROOT (another checkout, e.g. a baseline commit with its own
 * node_modules), so two builds are measured by one driver side by side. The probe is the measured build's own
 * (it patches the pg and PGlite modules that build loads).
 */
const root = process.env.BENCH_ROOT ?? fileURLToPath(new URL('../..', import.meta.url));
const probe = join(root, 'tests/perf/serviceProbe.ts');
const CLK_TCK = 100;

export interface Probed {
  statements: number;
  calls: { method: string; url: string; statements: number; writes: number }[];
  /** Write transactions committed outside any request (absent from a build whose probe did not count them). */
  asyncWrites?: number;
  /** Write transactions of the projection runner's session (absent likewise). */
  runnerWrites?: number;
  /** Statements that failed (conflicts, deadlocks; absent likewise). */
  failures?: number;
}

export interface ServiceProcess {
  pid: number;
  port: number;
  roles: string[];
  stats(): Promise<Probed>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

const ask = <T>(child: ChildProcess, message: string, isAnswer: (m: unknown) => boolean): Promise<T> =>
  new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (!isAnswer(m)) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.send(message);
  });

/** Settings of the driver's own environment a measured service must never inherit. */
const NOT_INHERITED = ['DATABASE_URL', 'NATS_URL', 'EMBEDDED_DB_DIR', 'PGLITE_DIR'];

export const startServiceProcess = async (
  env: Record<string, string>,
  roles: string[] = [],
): Promise<ServiceProcess> => {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !NOT_INHERITED.includes(k)));
  const child = spawn(
    process.execPath,
    [
      // BENCH_PROFILE=<dir>: each measured service writes its V8 CPU profile there when it stops.
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
      '--import',
      'tsx',
      '--import',
      probe,
      'app/main.ts',
      ...roles.flatMap((r) => ['--role', r]),
    ],
    {
      cwd: root,
      env: {
        ...inherited,
        APP_ENV: 'test',
        // What production runs: the benchmark measures the append path without the development check.
        CHECK_EVENT_SCHEMAS: 'false',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: '0',
        METRICS_PORT: '0',
        JWT_SECRET: 'bench-jwt-secret-0123456789abcdef',
        ADMIN_BOOTSTRAP_EMAIL: TEST_SUPER_ADMIN.email,
        ADMIN_BOOTSTRAP_PASSWORD: TEST_SUPER_ADMIN.password,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n')) {
        if (!line.includes('"service started"')) continue;
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(Number(JSON.parse(line).port));
        return;
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`service (${roles.join(',') || 'all roles'}) exited with ${code} before it started`)),
    );
  });
  return {
    pid: child.pid!,
    port,
    roles,
    stats: () => ask<Probed>(child, 'stats', (m) => typeof m === 'object' && m !== null),
    reset: () => ask<void>(child, 'reset', (m) => m === 'reset'),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
};

/** User plus system CPU of a process so far, in milliseconds. */
export const cpuMs = (pid: number): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
};

/**
 * CPU of the PostgreSQL backends serving one database (their process title names it), sampled while the
 * bench runs: a backend that ends between two samples keeps its last reading.
 */
export const postgresCpu = (database: string, everyMs = 50) =>
  cpuSampler((_pid, cmdline) => cmdline.startsWith('postgres: ') && cmdline.includes(` ${database} `), everyMs);

const parentOf = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } catch {
    return 0;
  }
};

/**
 * CPU of the embedded PostgreSQL that a service started (its child postmaster): the postmaster and every
 * process of it, backends and background workers alike.
 */
export const embeddedPostgresCpu = (servicePid: number, everyMs = 50) => {
  let postmaster = 0;
  return cpuSampler((pid, cmdline) => {
    if (parentOf(pid) === servicePid && cmdline.includes('/native/bin/postgres')) postmaster = pid;
    return postmaster > 0 && (pid === postmaster || parentOf(pid) === postmaster);
  }, everyMs);
};

const cpuSampler = (counts: (pid: number, cmdline: string) => boolean, everyMs: number) => {
  const seen = new Map<number, { first: number; last: number }>();
  const sample = () => {
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid)) continue;
      let cmdline: string;
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (!counts(pid, cmdline)) continue;
      const ms = cpuMs(pid);
      const s = seen.get(pid);
      if (s) s.last = ms;
      else seen.set(pid, { first: ms, last: ms });
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    /** CPU milliseconds since the sampler started, and how many backends were seen. */
    stop(): { ms: number; backends: number } {
      clearInterval(timer);
      sample();
      let ms = 0;
      for (const s of seen.values()) ms += s.last - s.first;
      return { ms, backends: seen.size };
    },
  };
};

/** Just enough of the test harness's TestService for the sign-in helpers: HTTP to a running service. */
export const overHttp = (port: number): TestService => {
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    port,
    service: undefined as never,
    async request(method, path, { token, body, headers } = {}) {
      const send = () =>
        fetch(baseUrl + path, {
          method,
          headers: {
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...headers,
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
        });
      // A kept-alive socket the server closed as it was reused: a read is safe to send again.
      const res = await send().catch((err) => (method === 'GET' ? send() : Promise.reject(err)));
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
    stop: async () => undefined,
  };
};

/**
 * Until the service on `port` says ready: measured as a load balancer would send
 * traffic. An API-only process is ready once the projector process it follows has caught up, so this waits
 * after every process of a setting has started.
 */
export const untilReady = async (port: number): Promise<void> => {
  const deadline = Date.now() + 120_000;
  while ((await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null))?.status !== 200) {
    if (Date.now() > deadline) throw new Error(`service on :${port} never said ready`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
