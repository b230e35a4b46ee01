import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/**
 * The SQL statements this process sends on behalf of one piece of work run in it (a command called directly,
 * with the service in the same process): counted by the work's async context, so the service's own background
 * work (projections, catch-ups) running meanwhile is left out. Both backends speak to PostgreSQL through `pg`.
 */
const counting = new AsyncLocalStorage<{ statements: number }>();
let patched = false;

const patch = () => {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const counter = counting.getStore();
    if (counter) counter.statements++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  patched = true;
};

export const countStatements = async <T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> => {
  if (!patched) patch();
  const counter = { statements: 0 };
  const result = await counting.run(counter, work);
  return { result, statements: counter.statements };
};
