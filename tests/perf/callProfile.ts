import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../infra/context.js';

/**
 * Profiles each HTTP request of a service under a bench: the SQL statements it issues, counted at the
 * pool (every `query` on the pool or on a client it handed out counts for the request whose async context
 * issued it), and the time it waits for the read models (`settle`). Projectors and jobs run in their own
 * contexts, so only the request's own work (its command, inline reactions and reads) counts.
 */
export interface CallProfile {
  method: string;
  url: string;
  statements: number;
  settleMs: number;
}

export const profileCalls = (ctx: AppContext, server: Server, onCall: (call: CallProfile) => void): void => {
  const current = new AsyncLocalStorage<{ statements: number; settleMs: number }>();
  const count = () => {
    const s = current.getStore();
    if (s) s.statements++;
  };
  const pool = ctx.pool as { -readonly [K in keyof AppContext['pool']]: AppContext['pool'][K] };
  const query = pool.query.bind(pool);
  const connect = pool.connect.bind(pool);
  pool.query = ((sql: string, params?: readonly unknown[]) => {
    count();
    return query(sql, params);
  }) as typeof pool.query;
  pool.connect = async () => {
    const client = await connect();
    const clientQuery = client.query.bind(client);
    return {
      release: () => client.release(),
      get broken() {
        return client.broken;
      },
      query: ((sql: string, params?: readonly unknown[]) => {
        count();
        return clientQuery(sql, params);
      }) as typeof client.query,
    };
  };
  const settle = ctx.settle.bind(ctx);
  ctx.settle = async (position) => {
    const started = performance.now();
    try {
      await settle(position);
    } finally {
      const s = current.getStore();
      if (s) s.settleMs += performance.now() - started;
    }
  };
  // The first 'request' listener: the app's own listener runs after it in the same context.
  server.prependListener('request', (req, res) => {
    const store = { statements: 0, settleMs: 0 };
    // Express rewrites req.url while routing: keep the URL as it arrived.
    const { method = '', url = '' } = req;
    current.enterWith(store);
    // The body arrives in the socket's context: its events must run in the request's.
    req.emit = AsyncLocalStorage.bind(req.emit.bind(req));
    res.once('finish', () => onCall({ method, url, ...store }));
  });
};
