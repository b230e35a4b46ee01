import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirectoryLocked, lockDirectory, lockPathOf } from './directoryLock.js';

describe('lockDirectory', () => {
  const roots: string[] = [];
  const dirOf = () => {
    const root = mkdtempSync(join(tmpdir(), 'lock-'));
    roots.push(root);
    return join(root, 'postgres');
  };
  afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('writes our pid beside the directory and removes it on release', () => {
    const dir = dirOf();
    const lock = lockDirectory(dir);
    expect(lock.path).toBe(`${dir}.lock`);
    expect(readFileSync(lock.path, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it('refuses a directory whose lock names a live process, naming the directory and the pid', () => {
    const dir = dirOf();
    writeFileSync(lockPathOf(dir), `${process.ppid}\n`);
    expect(() => lockDirectory(dir)).toThrow(DirectoryLocked);
    expect(() => lockDirectory(dir)).toThrow(`The embedded database ${dir} is in use by process ${process.ppid}`);
    expect(readFileSync(lockPathOf(dir), 'utf8').trim()).toBe(String(process.ppid));
  });

  it('takes over the lock of a process that is gone', () => {
    const dir = dirOf();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(lockPathOf(dir), `${gone}\n`);
    const lock = lockDirectory(dir);
    expect(readFileSync(lock.path, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('release leaves alone a lock that someone else took over meanwhile', () => {
    const dir = dirOf();
    const lock = lockDirectory(dir);
    writeFileSync(lock.path, `${process.ppid}\n`);
    lock.release();
    expect(readFileSync(lock.path, 'utf8').trim()).toBe(String(process.ppid));
  });
});
