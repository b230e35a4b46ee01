import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';

/** Another live process owns the embedded database directory. */
export class DirectoryLocked extends Error {
  constructor(
    readonly dir: string,
    readonly ownerPid: number,
  ) {
    super(
      `The embedded database ${dir} is in use by process ${ownerPid}; stop it first (lock file ${lockPathOf(dir)})`,
    );
    this.name = 'DirectoryLocked';
  }
}

export interface DirectoryLock {
  readonly path: string;
  release(): void;
}

/** Beside the directory, not inside it: PostgreSQL owns the directory's contents. */
export const lockPathOf = (dir: string): string => `${resolve(dir)}.lock`;

/** Whether a process of that pid exists (EPERM: it does, but belongs to someone else). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const readOwner = (path: string): number | null => {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
};

/**
 * The embedded database is one service's: a second service would stop the first one's PostgreSQL as a
 * stale one, or run its migrations and jobs beside it. The lock file holds the owner's pid and is created atomically
 * (O_EXCL). A lock whose pid is dead, or is our own pid (a container restarted as PID 1 again), is stale
 * and taken over. Two processes taking over the same stale lock in the same instant are not told apart;
 * the lock is for the operator's mistake of a second start, not for a race between supervisors.
 */
export const lockDirectory = (dir: string): DirectoryLock => {
  const path = lockPathOf(dir);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
      const owner = readOwner(path);
      // A lock being written right now has no pid yet: give its owner a moment before judging it.
      if (owner === null && attempt === 0) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
        continue;
      }
      if (owner !== null && owner !== process.pid && isAlive(owner)) throw new DirectoryLocked(dir, owner);
      try {
        unlinkSync(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    // Only our own lock: never remove one that a later owner took over.
    if (readOwner(path) === process.pid) unlinkSync(path);
  };
  process.on('exit', release);
  return { path, release };
};
