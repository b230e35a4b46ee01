import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildService } from '../composition.js';
import { loadConfig } from '../../infra/config.js';

/**
 * `npx tsx app/cli/writeApiDocuments.ts [dir]` (default data/api): writes the OpenAPI and AsyncAPI
 * documents exactly as a development service serves them (dev routes included), for the lint in .ci/run.
 * Runs the service on an in-memory database, so it needs no settings and touches nothing.
 */
const main = async () => {
  const dir = process.argv[2] ?? 'data/api';
  const service = await buildService({
    config: loadConfig({
      APP_ENV: 'development',
      LOG_LEVEL: 'silent',
      EMBEDDED_DB_DIR: 'memory://',
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      DEVELOPMENT_RATE_VES: '0',
    }),
  });
  try {
    const port = await service.start(0);
    await mkdir(dir, { recursive: true });
    for (const name of ['openapi.json', 'asyncapi.json']) {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/${name}`);
      if (!res.ok) throw new Error(`GET /api/v1/${name} answered ${res.status}`);
      await writeFile(join(dir, name), `${JSON.stringify(await res.json(), null, 2)}\n`);
    }
    console.log(`wrote ${join(dir, 'openapi.json')} and ${join(dir, 'asyncapi.json')}`);
  } finally {
    await service.stop();
  }
};

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
