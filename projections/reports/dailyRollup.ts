import { sql, type Kysely, type Migration, type RawBuilder } from 'kysely';
import { UNDELIVERED_END } from '../../domain/order/rules.js';
import { DEFAULT_CONFIG, type ConfigEvent } from '../../domain/settlement/config.js';
import type { Db, Trx } from '../../infra/db/database.js';
import type { BusMessage } from '../../infra/bus/port.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { EventHandler } from '../projector.js';

/**
 * The report_orders rows summed per calendar day of creation (report calendar): report_daily per city
 * and water type, report_daily_drivers per driver too, so the operational and performance reports and
 * the list totals read a few thousand rows instead of every order of the window. A bucket holds integer
 * counts and sums only (minutes as tenths), so any set of buckets adds up to exactly what the rows it
 * covers add up to. report_driver_running holds each driver's running totals per city as of every day
 * they had orders: a driver's figures over any span are two lookups, so the performance report's weeks
 * and months cost two rows per driver and period, however many days they span.
 *
 * The calendar is the settlement timezone (docs/domain-rules.md, reports), followed from SettlementConfigChanged
 * in report_calendar: the report routes read their time zone from there too, so a day here is always
 * the day the routes mean. A new time zone re-buckets every roll-up from report_orders.
 */

/** One bucket's figures: the name of each and what one order row contributes to it. */
const UNDELIVERED = sql.join(UNDELIVERED_END.map((s) => sql.lit(s)));

const CONTRIBUTIONS = {
  orders: sql`1`,
  accepted: sql`(o.accepted_at IS NOT NULL)::int`,
  delivered: sql`(o.status = 'DELIVERED')::int`,
  cancelled: sql`(o.status = 'CANCELLED')::int`,
  expired: sql`(o.status = 'EXPIRED')::int`,
  driver_cancellations: sql`(o.cancelled_by_role IS NOT DISTINCT FROM 'DRIVER')::int`,
  liters_requested: sql`o.liters_requested`,
  liters_delivered: sql`coalesce(o.liters_delivered, 0)`,
  liters_agreed: sql`CASE WHEN o.accepted_at IS NOT NULL THEN o.liters_requested ELSE 0 END`,
  liters_requested_delivered: sql`CASE WHEN o.status = 'DELIVERED' THEN o.liters_requested ELSE 0 END`,
  gross_cents: sql`CASE WHEN o.status = 'DELIVERED' THEN coalesce(o.final_price_cents, 0) ELSE 0 END`,
  commission_cents: sql`CASE WHEN o.status = 'DELIVERED' THEN o.platform_revenue_cents ELSE 0 END`,
  driver_net_cents: sql`CASE WHEN o.status = 'DELIVERED' THEN o.driver_receives_cents ELSE 0 END`,
  earnings_cents: sql`CASE WHEN o.status = 'DELIVERED' THEN o.driver_gross_cents ELSE 0 END`,
  // Minutes are written rounded to one decimal: in tenths they add up exactly.
  acceptance_tenths: sql`coalesce(round(o.acceptance_minutes * 10), 0)::int`,
  acceptance_n: sql`(o.acceptance_minutes IS NOT NULL)::int`,
  delivery_tenths: sql`coalesce(round(o.delivery_minutes * 10), 0)::int`,
  delivery_n: sql`(o.delivery_minutes IS NOT NULL)::int`,
  rating_sum: sql`coalesce(o.rating, 0)`,
  rating_n: sql`(o.rating IS NOT NULL)::int`,
  incidents: sql`o.incidents`,
  // The intents report's totals: orders that ended unconverted, by why.
  expired_no_offers: sql`(o.status = 'EXPIRED' AND o.offers_count = 0)::int`,
  client_cancellations: sql`(o.status = 'CANCELLED' AND o.cancelled_by_role = 'CLIENT')::int`,
  ended_with_offers: sql`(o.status IN (${UNDELIVERED}) AND o.offers_count > 0)::int`,
  unrealized_cents: sql`CASE WHEN o.status IN (${UNDELIVERED}) THEN o.client_pays_cents ELSE 0 END`,
} as const;

export type Figure = keyof typeof CONTRIBUTIONS;
export const FIGURES = Object.keys(CONTRIBUTIONS) as Figure[];

export type ReportDailyRow = { day: string; city_id: number | null; water_type: string } & Record<Figure, number>;
export type ReportDailyDriverRow = ReportDailyRow & { driver_id: number | null };

/** Each roll-up and its bucket key: every report filter it can answer is a column of the key. */
const ROLLUPS = {
  report_daily: ['day', 'city_id', 'water_type'],
  report_daily_drivers: ['day', 'city_id', 'driver_id', 'water_type'],
} as const;
type Rollup = keyof typeof ROLLUPS;
const ROLLUP_NAMES = Object.keys(ROLLUPS) as Rollup[];

/** city_key is the order's city, 0 without one (no admin city has id 0). */
export type ReportDriverRunningRow = { driver_id: number; city_key: number; day: string } & Record<Figure, number>;

export interface ReportCalendarRow {
  id: boolean;
  /** As the settlement config names it: an IANA zone or a ±HH:MM offset. */
  timezone: string;
  /** The same zone as PostgreSQL's AT TIME ZONE reads it (pgZone). */
  pg_zone: string;
}

declare module '../../infra/db/database.js' {
  interface Database {
    report_daily: ReportDailyRow;
    report_daily_drivers: ReportDailyDriverRow;
    report_driver_running: ReportDriverRunningRow;
    report_driver_cities: { driver_id: number; city_key: number };
    report_calendar: ReportCalendarRow;
  }
}

export const dailyRollupMigrations: Record<string, Migration> = {
  '0301_report_daily_rollup': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE report_calendar (id boolean PRIMARY KEY DEFAULT true CHECK (id), timezone text NOT NULL,
        pg_zone text NOT NULL)`.execute(db);
      for (const table of ROLLUP_NAMES) {
        const key = ROLLUPS[table];
        await sql`CREATE TABLE ${sql.id(table)} (
          day date NOT NULL,
          city_id integer,
          ${table === 'report_daily_drivers' ? sql`driver_id bigint,` : sql``}
          water_type text NOT NULL,
          ${sql.join(FIGURES.map((f) => sql`${sql.id(f)} integer NOT NULL DEFAULT 0`))}
        )`.execute(db);
        // Orders without a city or a driver have their own buckets: NULL is a key like any other.
        await sql`CREATE UNIQUE INDEX ${sql.id(`${table}_bucket`)}
          ON ${sql.id(table)} (${sql.join(key.map((c) => sql.id(c)))}) NULLS NOT DISTINCT`.execute(db);
      }
      await sql`CREATE INDEX report_daily_drivers_driver ON report_daily_drivers (driver_id, day)`.execute(db);
      await sql`CREATE TABLE report_driver_running (
        driver_id bigint NOT NULL,
        city_key integer NOT NULL,
        day date NOT NULL,
        ${sql.join(FIGURES.map((f) => sql`${sql.id(f)} bigint NOT NULL`))},
        PRIMARY KEY (driver_id, city_key, day)
      )`.execute(db);
      // Every (driver, city) report_driver_running has rows for: where a performance query starts.
      await sql`CREATE TABLE report_driver_cities (driver_id bigint NOT NULL, city_key integer NOT NULL,
        PRIMARY KEY (driver_id, city_key))`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE report_driver_cities, report_driver_running, report_daily_drivers, report_daily,
        report_calendar`.execute(db);
    },
  },
};

/** The report calendar's time zone: the settlement timezone's default until a config change names another. */
export const calendarZone = async (db: Db): Promise<string> =>
  (await db.selectFrom('report_calendar').select('timezone').executeTakeFirst())?.timezone ?? DEFAULT_CONFIG.timezone;

/**
 * A zone as PostgreSQL's AT TIME ZONE reads it: there a ±HH:MM
 * offset is POSIX (positive west of UTC), so its sign flips.
 */
export const pgZone = (tz: string): string =>
  /^[+-]\d\d:\d\d$/.test(tz) ? `${tz[0] === '+' ? '-' : '+'}${tz.slice(1)}` : tz;

const zoneNow = sql`coalesce((SELECT pg_zone FROM report_calendar), ${pgZone(DEFAULT_CONFIG.timezone)})`;

/** The bucket key and figures of report_orders rows `o` under `where`, one row per order. */
export const orderBuckets = (tz: RawBuilder<unknown>, where: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`SELECT (o.created_at AT TIME ZONE ${tz})::date AS day, o.city_id, o.driver_id, o.water_type,
      ${sql.join(FIGURES.map((f) => sql`${CONTRIBUTIONS[f]} AS ${sql.id(f)}`))}
    FROM report_orders o WHERE ${where}`;

const columns = (table: Rollup) => sql.join([...ROLLUPS[table], ...FIGURES].map((c) => sql.id(c)));
const keyOf = (table: Rollup) => sql.join(ROLLUPS[table].map((c) => sql.id(c)));

/**
 * Adds (sign 1) or takes back (sign −1) what a set of orders contributes to its buckets, set-based: both
 * day buckets and the drivers' lists of cities in one statement, then the drivers' running totals in two.
 * The orders of one bucket are summed before they meet it (ON CONFLICT may touch a row once per statement).
 */
const count = async (trx: Trx, orderIds: number[], sign: 1 | -1) => {
  const ids = sql`o.id = ANY(${orderIds}::bigint[])`;
  const [daily, drivers] = ROLLUP_NAMES.map(
    (table) => sql`INSERT INTO ${sql.id(table)} (${columns(table)})
      SELECT ${keyOf(table)}, ${sql.join(FIGURES.map((f) => sql`${sign}::int * sum(${sql.id(f)})`))} FROM b
      GROUP BY ${keyOf(table)}
      ON CONFLICT (${keyOf(table)})
      DO UPDATE SET ${sql.join(FIGURES.map((f) => sql`${sql.id(f)} = ${sql.id(table, f)} + excluded.${sql.id(f)}`))}`,
  );
  await sql`WITH b AS (${orderBuckets(zoneNow, ids)}),
      daily AS (${daily}),
      drivers AS (${drivers})
    INSERT INTO report_driver_cities (driver_id, city_key)
      SELECT DISTINCT driver_id, coalesce(city_id, 0) FROM b WHERE driver_id IS NOT NULL
      ON CONFLICT DO NOTHING`.execute(trx);
  await run(trx, ids, sign);
};

/**
 * The drivers' running totals from each order's day on: a row for each (driver, city, day) first, carrying
 * the totals of the day before, then every row moves by the figures of the orders on or before its day.
 */
const run = async (trx: Trx, ids: RawBuilder<unknown>, sign: 1 | -1) => {
  const days = sql`SELECT driver_id, coalesce(city_id, 0) AS city_key, day,
    ${sql.join(FIGURES.map((f) => sql`sum(${sql.id(f)}) AS ${sql.id(f)}`))}
    FROM (${orderBuckets(zoneNow, sql`${ids} AND o.driver_id IS NOT NULL`)}) b GROUP BY 1, 2, 3`;
  await sql`INSERT INTO report_driver_running (driver_id, city_key, day, ${sql.join(FIGURES.map((f) => sql.id(f)))})
    SELECT g.driver_id, g.city_key, g.day, ${sql.join(FIGURES.map((f) => sql`coalesce(p.${sql.id(f)}, 0)`))}
    FROM (${days}) g LEFT JOIN LATERAL (
      SELECT * FROM report_driver_running r
      WHERE r.driver_id = g.driver_id AND r.city_key = g.city_key AND r.day < g.day ORDER BY r.day DESC LIMIT 1
    ) p ON TRUE
    ON CONFLICT DO NOTHING`.execute(trx);
  await sql`UPDATE report_driver_running r
    SET ${sql.join(FIGURES.map((f) => sql`${sql.id(f)} = r.${sql.id(f)} + ${sign}::int * d.${sql.id(f)}`))}
    FROM (
      SELECT r2.driver_id, r2.city_key, r2.day,
      ${sql.join(FIGURES.map((f) => sql`sum(g.${sql.id(f)}) AS ${sql.id(f)}`))}
      FROM report_driver_running r2 JOIN (${days}) g
      ON r2.driver_id = g.driver_id AND r2.city_key = g.city_key AND r2.day >= g.day
      GROUP BY r2.driver_id, r2.city_key, r2.day
    ) d
    WHERE r.driver_id = d.driver_id AND r.city_key = d.city_key AND r.day = d.day`.execute(trx);
};

/** The roll-ups from scratch: every order of report_orders in its buckets of the current calendar. */
export const rebucket = async (db: Db): Promise<void> => {
  for (const table of ROLLUP_NAMES) {
    await sql`DELETE FROM ${sql.id(table)}`.execute(db);
    await sql`INSERT INTO ${sql.id(table)} (${columns(table)})
      SELECT ${keyOf(table)}, ${sql.join(FIGURES.map((f) => sql`sum(${sql.id(f)})`))}
      FROM (${orderBuckets(zoneNow, sql`TRUE`)}) b GROUP BY ${keyOf(table)}`.execute(db);
  }
  await sql`DELETE FROM report_driver_running`.execute(db);
  await sql`INSERT INTO report_driver_running (driver_id, city_key, day, ${sql.join(FIGURES.map((f) => sql.id(f)))})
    SELECT driver_id, coalesce(city_id, 0), day,
      ${sql.join(
        FIGURES.map(
          (f) => sql`sum(sum(${sql.id(f)})) OVER (PARTITION BY driver_id, coalesce(city_id, 0)
        ORDER BY day)`,
        ),
      )}
    FROM (${orderBuckets(zoneNow, sql`o.driver_id IS NOT NULL`)}) b
    GROUP BY driver_id, coalesce(city_id, 0), day`.execute(db);
  await sql`INSERT INTO report_driver_cities (driver_id, city_key) SELECT DISTINCT driver_id, city_key
    FROM report_driver_running ON CONFLICT DO NOTHING`.execute(db);
};

type OrderEvent = RecordedEvent<string, { orderId: number }>;

/**
 * Applies a batch of report events with the roll-ups kept set-based: the orders that `counted` events
 * touch lose what their rows contributed before the batch, the row handlers run, and the orders gain what
 * their rows contribute after it. An order whose status, driver or figures change later is never counted
 * twice, whichever bucket it ends up in, and a batch costs six roll-up statements however many events it
 * holds. The events run in log order; a calendar change re-buckets from the rows it stands after.
 */
export const applyWithRollups =
  (handlers: Record<string, EventHandler>, counted: ReadonlySet<string>) =>
  async (trx: Trx, events: RecordedEvent[], emit: (message: BusMessage) => void): Promise<void> => {
    let segment: RecordedEvent[] = [];
    const flush = async () => {
      const orderIds = [
        ...new Set(segment.filter((e) => counted.has(e.type)).map((e) => (e as OrderEvent).data.orderId)),
      ];
      if (orderIds.length > 0) await count(trx, orderIds, -1);
      for (const e of segment) await handlers[e.type](trx, e, emit);
      if (orderIds.length > 0) await count(trx, orderIds, 1);
      segment = [];
    };
    for (const e of events) {
      if (Object.hasOwn(calendarHandlers, e.type)) {
        await flush();
        await calendarHandlers[e.type](trx, e, emit);
      } else segment.push(e);
    }
    await flush();
  };

export const calendarHandlers: Record<string, EventHandler> = {
  SettlementConfigChanged: async (trx, { data: d }: RecordedEvent<string, ConfigEvent['data']>) => {
    const timezone = d.newValues.timezone;
    if (timezone === undefined) return;
    const zone = { timezone, pg_zone: pgZone(timezone) };
    await trx
      .insertInto('report_calendar')
      .values({ id: true, ...zone })
      .onConflict((oc) => oc.column('id').doUpdateSet(zone))
      .execute();
    await rebucket(trx);
  },
};
