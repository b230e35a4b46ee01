import { embeddedDbDir, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import { openEmbeddedPool } from './embeddedPostgres.js';
import { createPostgresPool, type SqlPool } from './sqlPool.js';

/** DATABASE_URL's server, else the embedded PostgreSQL, which stops when the pool ends. */
export const openPool = async (config: Config, logger?: Logger): Promise<SqlPool> =>
  config.DATABASE_URL
    ? createPostgresPool(config.DATABASE_URL)
    : openEmbeddedPool({ dir: embeddedDbDir(config), logger });
