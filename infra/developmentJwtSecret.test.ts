import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { jwtSecretFileOf, keepJwtSecretWithData } from './developmentJwtSecret.js';
import { DEVELOPMENT_SECRETS } from './productionPolicy.js';

describe('the JWT secret outside production', () => {
  const root = mkdtempSync(join(tmpdir(), 'jwt-secret-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is never the repository’s: a process without one gets a random secret of its own', () => {
    const a = loadConfig({});
    const b = loadConfig({ JWT_SECRET: DEVELOPMENT_SECRETS.JWT_SECRET });
    for (const c of [a, b]) {
      expect(c.JWT_SECRET).not.toBe(DEVELOPMENT_SECRETS.JWT_SECRET);
      expect(Buffer.byteLength(c.JWT_SECRET)).toBeGreaterThanOrEqual(32);
    }
    expect(a.JWT_SECRET).not.toBe(b.JWT_SECRET);
    expect(loadConfig({ JWT_SECRET: 'an-operator-chosen-secret-0123456789' }).JWT_SECRET).toBe(
      'an-operator-chosen-secret-0123456789',
    );
  });

  it('is generated once and kept next to the embedded data directory, for its owner only', () => {
    const env = { PGLITE_DIR: join(root, 'data', 'pglite') };
    const first = keepJwtSecretWithData(loadConfig(env), env);
    const file = jwtSecretFileOf(env.PGLITE_DIR);
    expect(file).toBe(join(root, 'data', 'jwt-secret'));
    expect(readFileSync(file, 'utf8').trim()).toBe(first.JWT_SECRET);
    expect(statSync(file).mode & 0o077).toBe(0);
    const restarted = keepJwtSecretWithData(loadConfig(env), env);
    expect(restarted.JWT_SECRET).toBe(first.JWT_SECRET);
  });

  it('stays in memory for memory:// and leaves a given secret alone', () => {
    const memory = { PGLITE_DIR: 'memory://' };
    const c = loadConfig(memory);
    expect(keepJwtSecretWithData(c, memory)).toBe(c);
    const given = { PGLITE_DIR: join(root, 'given', 'pglite'), JWT_SECRET: 'an-operator-chosen-secret-0123456789' };
    expect(keepJwtSecretWithData(loadConfig(given), given).JWT_SECRET).toBe(given.JWT_SECRET);
    expect(() => statSync(jwtSecretFileOf(given.PGLITE_DIR))).toThrow();
  });
});
