import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import type { SqlPool } from '../../infra/db/sqlPool.js';

/**
 * Counts the SQL statements each HTTP request issues, at the pool: every `query` on the pool or on a
 * client it handed out counts for the request whose async context issued it. Projectors and jobs run in
 * their own contexts, so only the request's own work (its command, inline reactions and reads) counts.
 */
export interface StatementCounter {
  /** Called once per finished request with its method, url and the statements it issued. */
  onRequest(listener: (method: string, url: string, statements: number) => void): void;
}

export const countStatements = (pool: SqlPool, server: Server): StatementCounter => {
  const current = new AsyncLocalStorage<{ statements: number }>();
  const count = () => {
    const s = current.getStore();
    if (s) s.statements++;
  };
  const mutable = pool as { -readonly [K in keyof SqlPool]: SqlPool[K] };
  const query = pool.query.bind(pool);
  const connect = pool.connect.bind(pool);
  mutable.query = ((sql: string, params?: readonly unknown[]) => {
    count();
    return query(sql, params);
  }) as SqlPool['query'];
  mutable.connect = async () => {
    const client = await connect();
    const clientQuery = client.query.bind(client);
    return {
      ...client,
      release: () => client.release(),
      query: ((sql: string, params?: readonly unknown[]) => {
        count();
        return clientQuery(sql, params);
      }) as typeof client.query,
    };
  };
  const listeners: ((method: string, url: string, statements: number) => void)[] = [];
  // The first 'request' listener: the app's own listener runs after it in the same context.
  server.prependListener('request', (req, res) => {
    const store = { statements: 0 };
    // Express rewrites req.url while routing: keep the URL as it arrived.
    const { method = '', url = '' } = req;
    current.enterWith(store);
    // The body arrives in the socket's context: its events must run in the request's.
    req.emit = AsyncLocalStorage.bind(req.emit.bind(req));
    res.once('finish', () => listeners.forEach((l) => l(method, url, store.statements)));
  });
  return { onRequest: (l) => listeners.push(l) };
};
