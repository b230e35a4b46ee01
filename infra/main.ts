import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { ALL_ROLES, buildService, type ProcessRole } from './composition.js';

/** `npm start`: API, projectors, schedulers and gateways in one process, or only those named by --role. */
const main = async () => {
  const { values } = parseArgs({ options: { role: { type: 'string', multiple: true } }, allowPositionals: true });
  const roles = (values.role ?? []).flatMap((r) => r.split(','));
  const bad = roles.filter((r) => !ALL_ROLES.includes(r as ProcessRole));
  if (bad.length) throw new ConfigError(`Unknown --role ${bad.join(', ')} (use ${ALL_ROLES.join('|')})`);
  const config = loadConfig();
  const service = await buildService({ config, roles: roles.length ? (roles as ProcessRole[]) : ALL_ROLES });
  const port = await service.start();
  service.ctx.logger.info({ port, store: service.ctx.store.name, bus: service.ctx.bus.name, env: config.APP_ENV }, 'service started');
  const shutdown = (signal: string) => {
    service.ctx.logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (err) => {
        service.ctx.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
};

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    console.error('Start-up failed:', err instanceof Error ? err.message : err);
  }
  process.exit(1);
});
