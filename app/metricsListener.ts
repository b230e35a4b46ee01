import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { healthRoutes } from '../api/health.js';
import type { ApiContext } from '../api/apiContext.js';
import { ConfigError } from '../infra/config.js';
import type { Metrics } from '../infra/metrics/metrics.js';

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The operator's own listener, apart from the public API port: Prometheus' /metrics, and /health and /ready
 * for every role, so a worker with no API (`--role projector --role scheduler`) can be probed too. It logs no
 * request: probes and scrapes come every few seconds and say nothing new.
 */
export const listenForMetrics = async (
  ctx: ApiContext,
  metrics: Metrics,
  port: number,
  host: string,
): Promise<MetricsListener> => {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async (_req, res) => {
    res.setHeader('content-type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  const router = express.Router();
  healthRoutes(ctx, router);
  app.use(router);
  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new ConfigError(
              `METRICS_PORT ${port} is in use (another instance on this machine?): give each instance its own, or 0 to turn the listener off`,
            )
          : err,
      ),
    );
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
