import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { embeddedDbDir, type Config } from './config.js';

/**
 * Outside production no secret that signs anything may be public (docs/decisions/0046-money-risk-limits.md):
 * without JWT_SECRET the service does not fall back to a value in this repository. loadConfig gives a
 * process a random one; a service keeping its embedded data on disk keeps it in a file next to the data
 * directory (created once, readable by its owner only), so admin sessions and pending phone codes survive a
 * restart as the data does. In memory (`memory://`) and on a DATABASE_URL without JWT_SECRET it stays the
 * process's own: set JWT_SECRET to share one between instances.
 */
export const randomJwtSecret = (): string => randomBytes(32).toString('base64url');

/** Where the embedded data's secret is kept: beside its data directory, never inside the repository's files. */
export const jwtSecretFileOf = (dataDir: string): string => join(dirname(resolve(dataDir)), 'jwt-secret');

const readSecret = (file: string): string | null => {
  try {
    const secret = readFileSync(file, 'utf8').trim();
    return secret.length >= 32 ? secret : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
};

/** The config with the JWT secret kept with the embedded data, when none was given and the data is on disk. */
export const keepJwtSecretWithData = (config: Config, env: Record<string, string | undefined>): Config => {
  if (config.APP_ENV === 'production' || env.JWT_SECRET || config.DATABASE_URL) return config;
  const dataDir = embeddedDbDir(config);
  if (dataDir === 'memory://') return config;
  const file = jwtSecretFileOf(dataDir);
  const kept = readSecret(file);
  if (kept) return { ...config, JWT_SECRET: kept };
  mkdirSync(dirname(file), { recursive: true });
  try {
    // 'wx': of two processes starting on the same data at once, the second reads the first one's secret.
    writeFileSync(file, `${config.JWT_SECRET}\n`, { mode: 0o600, flag: 'wx' });
    return config;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { ...config, JWT_SECRET: readSecret(file) ?? config.JWT_SECRET };
  }
};
