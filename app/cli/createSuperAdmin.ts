import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createSuperAdmin } from '../../commands/identity/adminAccounts.js';
import { systemClock } from '../../infra/clock.js';
import { ConfigError, loadConfig } from '../../infra/config.js';
import { createDb } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { openPool } from '../../infra/db/openPool.js';
import { functionsOf, migrationsOf } from '../modules.js';

const Args = z.object({
  email: z.string().email(),
  password: z.string().min(8).max(128),
  name: z.string().min(2).max(80).default('Super admin'),
});

/**
 * `npm run admin:create -- --email a@b.co --password '…' [--name 'Ana']`: the first super admin
 * (confirmed, all cities) in the configured database, as ADMIN_BOOTSTRAP_* does at start. With the
 * embedded database, stop the service first (its directory has one owner).
 */
const main = async () => {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
  });
  const args = Args.safeParse(values);
  if (!args.success) {
    throw new ConfigError(
      `Usage: npm run admin:create -- --email <email> --password <at least 8 characters> [--name ` +
        `<name>]\n  ${args.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n  ')}`,
    );
  }
  const config = loadConfig();
  const pool = await openPool(config);
  const db = createDb(pool);
  try {
    await migrateToLatest(db, migrationsOf(), functionsOf());
    const outcome = await createSuperAdmin(db, systemClock.now(), args.data.email, args.data.password, args.data.name);
    console.log(
      outcome === 'created'
        ? `Super admin ${args.data.email} created.`
        : 'A super admin already exists (or the email is taken); nothing changed.',
    );
  } finally {
    await db.destroy();
  }
};

main().catch((err) => {
  console.error(
    err instanceof ConfigError
      ? err.message
      : `admin:create failed: ${err instanceof Error ? err.message : String(err)}`,
  );
  process.exit(1);
});
