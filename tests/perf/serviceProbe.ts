import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import pg from 'pg';

/**
 * Loaded into a service that a bench starts as a child process (`node --import tsx --import <this>`): counts
 * the SQL statements the process sends, in all and per HTTP request (by the request's async context), and the
 * write transactions it commits outside any request (the asynchronous side: the projection runner's, process
 * managers', jobs') and on the runner's session, and answers the bench over the IPC channel. The service's own code is not
 * touched.
 */
interface Call {
  method: string;
  url: string;
  statements: number;
  /** Write transactions committed on the request's behalf. */
  writes: number;
}

const current = new AsyncLocalStorage<Call>();
let statements = 0;
let calls: Call[] = [];
let asyncWrites = 0;
let runnerWrites = 0;
/** Statements that failed (a conflict, a deadlock): each may have spent a transaction id the counters show. */
let failures = 0;

/** A statement that changes rows: a data-modifying one, or a call of the event store's writing functions. */
const WRITES = /^\s*(insert|update|delete|merge)\b|^\s*with\b[\s\S]*\b(insert|update|delete)\b|\bes_(append|apply)/i;
/** Per connection, the transaction it is in: the request that began it (none: outside calls), whether it wrote. */
const transactions = new WeakMap<object, { call: Call | undefined; wrote: boolean }>();
/** The projection runner's session: the one connection that sets asynchronous commit (projections/runner.ts). */
const runnerSessions = new WeakSet<object>();

/** A committed write transaction: the runner's, or another outside calls (process managers, jobs), or a call's. */
const committed = (client: object, call: Call | undefined) => {
  if (runnerSessions.has(client)) runnerWrites++;
  if (call) call.writes++;
  else asyncWrites++;
};

/** Counts a write transaction at its commit, or at the statement itself when it runs alone. */
const countWrites = (client: object, sql: string, call: Call | undefined) => {
  const tx = transactions.get(client);
  if (/^\s*set\s+synchronous_commit\s+to\s+off\b/i.test(sql)) runnerSessions.add(client);
  if (/^\s*(begin|start\s+transaction)\b/i.test(sql)) transactions.set(client, { call, wrote: false });
  else if (/^\s*(commit|rollback)\b/i.test(sql)) {
    if (tx?.wrote && /^\s*commit/i.test(sql)) committed(client, tx.call);
    transactions.delete(client);
  } else if (WRITES.test(sql)) {
    if (tx) tx.wrote = true;
    else committed(client, call);
  }
};

/** BENCH_TRACE=1 prints every statement, with the request it belongs to (or "-"), to stderr. */
const trace = process.env.BENCH_TRACE === '1';

const count = (client: object, text?: unknown) => {
  statements++;
  const call = current.getStore();
  if (call) call.statements++;
  const sql = String(typeof text === 'string' ? text : (text as { text?: string } | undefined)?.text);
  countWrites(client, sql, call);
  if (trace) {
    process.stderr.write(
      `SQL ${call ? `${call.method} ${call.url}` : '-'} :: ${String(sql).replace(/\s+/g, ' ').slice(0, 160)}\n`,
    );
  }
};

const pgQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  count(this, args[0]);
  const result = (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
  if (result instanceof Promise)
    result.catch((err: { code?: string }) => {
      failures++;
      if (trace) process.stderr.write(`SQL FAILED ${err.code ?? ''}\n`);
    });
  return result;
} as typeof pgQuery;

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
  const original = () => (emit as (...a: unknown[]) => boolean).apply(this, [event, ...args]);
  if (event !== 'request') return original();
  const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
  // The URL as it arrived: Express rewrites req.url while routing.
  const call: Call = { method: req.method ?? '', url: req.url ?? '', statements: 0, writes: 0 };
  res.once('finish', () => calls.push(call));
  req.emit = AsyncLocalStorage.bind(req.emit.bind(req));
  return current.run(call, original);
} as typeof emit;

process.on('message', (m: unknown) => {
  if (m === 'stats') process.send?.({ statements, calls, asyncWrites, runnerWrites, failures });
  if (m === 'reset') {
    statements = 0;
    calls = [];
    asyncWrites = 0;
    runnerWrites = 0;
    failures = 0;
    process.send?.('reset');
  }
});
