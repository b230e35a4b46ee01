import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { rebuildProjection, type RebuildResult } from '../../projections/rebuild.js';
import { openPool } from '../../infra/db/openPool.js';
import { inlineProjectorsOf, openStore } from '../composition.js';
import { ConfigError, loadConfig } from '../../infra/config.js';
import { createDb } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { functionsOf, migrationsOf, modules } from '../modules.js';

/**
 * `npm run projections:rebuild [-- name…]`: replays the log into fresh tables for the named projectors
 * (all when none is named) and swaps them in while the service keeps running. On the embedded
 * database, stop the service first: its directory has one owner.
 */
const main = async () => {
  const { positionals } = parseArgs({ allowPositionals: true });
  const config = loadConfig();
  const all = modules.flatMap((m) => m.projectors ?? []);
  const unknown = positionals.filter((n) => !all.some((p) => p.name === n));
  if (unknown.length > 0) {
    throw new ConfigError(
      `Unknown projector ${unknown.join(', ')}; known: ${all.map((p) => p.name).join(', ') || 'none'}`,
    );
  }
  const chosen = positionals.length > 0 ? all.filter((p) => positionals.includes(p.name)) : all;
  if (chosen.length === 0) {
    console.log('No projectors registered: nothing to rebuild.');
    return;
  }

  const pool = await openPool(config);
  const db = createDb(pool);
  const store = await openStore(config, pool);
  try {
    await migrateToLatest(db, migrationsOf(), functionsOf());
    const inline = inlineProjectorsOf(config, all);
    const width = Math.max(...chosen.map((p) => p.name.length));
    const results: RebuildResult[] = [];
    for (const p of chosen) {
      const bar = new cliProgress.SingleBar(
        {
          format: `${p.name.padEnd(width)} [{bar}] {percentage}% | position {value}/{total} | {eta_formatted}`,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Math.max(1, await store.headPosition()), 0);
      try {
        results.push(
          await rebuildProjection(
            {
              db,
              store,
              inline: inline.includes(p),
              onProgress: (position, head) => {
                bar.setTotal(Math.max(1, head));
                bar.update(position);
              },
            },
            p,
          ),
        );
        bar.update(bar.getTotal());
      } finally {
        bar.stop();
      }
    }
    console.log(`\n${'projector'.padEnd(width)}    events   position   seconds   events/s`);
    for (const r of results) {
      const s = r.ms / 1000;
      console.log(
        `${r.name.padEnd(width)}  ${String(r.events).padStart(8)}  ${String(r.position).padStart(9)}  ` +
          `${s.toFixed(1).padStart(8)}  ${String(Math.round(r.events / Math.max(s, 0.001))).padStart(9)}`,
      );
    }
  } finally {
    await store.close();
    await db.destroy();
  }
};

main().catch((err) => {
  console.error(
    err instanceof ConfigError ? err.message : `Rebuild failed: ${err instanceof Error ? err.message : String(err)}`,
  );
  process.exit(1);
});
