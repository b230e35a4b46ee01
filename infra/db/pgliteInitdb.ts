import { PGlite } from '@electric-sql/pglite';

/**
 * Creates a fresh PGlite data directory, run as a child process of the service (see createPgLitePool):
 * PGlite's initdb runs a second, temporary Postgres in WebAssembly whose memory the service would
 * otherwise keep resident for the rest of its life (about 400 MB of a fresh store's RSS).
 */
const dir = process.argv[2];
if (!dir) {
  console.error('usage: pgliteInitdb <dir>');
  process.exit(2);
}
const db = await PGlite.create(dir);
await db.close();
