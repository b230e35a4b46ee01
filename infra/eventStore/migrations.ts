import { sql, type Kysely, type Migration } from 'kysely';
import { appendPositionsMigration } from './appendPositions.js';
import { rowStatementsMigration } from './rowStatements.js';

/**
 * Events carry the id of the transaction that wrote them. Appends take a short session-level advisory
 * lock around the insert, so transaction ids and global positions are handed out in the same order, and
 * a reader of $all stops below the oldest append still in flight, so an event that commits late with a
 * lower position is never skipped (0005 below says how a reader knows which transactions append). The
 * lock is released before COMMIT, so commits of concurrent appends still group
 * (docs/decisions/0001-event-store-appends.md). Only the INSERT runs under the lock: the revision check
 * before it is guarded by the unique (stream_id, stream_position) key.
 */
/** The first append function, kept for the second migration's down(). */
const ES_APPEND_V1 = `
        CREATE FUNCTION es_append(p_stream text, p_expected bigint, p_events jsonb)
        RETURNS TABLE(out_event_id uuid, out_stream_position bigint, out_global_position bigint)
        LANGUAGE plpgsql AS $fn$
        DECLARE
          v_current bigint;
        BEGIN
          IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'es_append must run in a transaction of its own' USING ERRCODE = 'ES003';
          END IF;
          SELECT max(e.stream_position) INTO v_current FROM events e WHERE e.stream_id = p_stream;
          IF (p_expected = -1 AND v_current IS NOT NULL) OR (p_expected >= 0 AND v_current IS DISTINCT FROM p_expected)
          THEN
            RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES001', DETAIL = coalesce(v_current::text, '');
          END IF;
          PERFORM pg_advisory_lock(7340001);
          BEGIN
            RETURN QUERY INSERT INTO events AS e (event_id, stream_id, stream_position, type, data, metadata)
              SELECT (x->>'eventId')::uuid, p_stream, coalesce(v_current, -1) + n, x->>'type', x->'data',
              coalesce(x->'metadata', '{}'::jsonb)
              FROM jsonb_array_elements(p_events) WITH ORDINALITY AS t(x, n)
              RETURNING e.event_id, e.stream_position, e.global_position;
          EXCEPTION WHEN OTHERS OR QUERY_CANCELED THEN
            PERFORM pg_advisory_unlock(7340001);
            RAISE;
          END;
          PERFORM pg_advisory_unlock(7340001);
        END
        $fn$`;

export const eventStoreMigrations: Record<string, Migration> = {
  '0001_event_store': {
    async up(db: Kysely<unknown>) {
      await sql`
        CREATE TABLE events (
          global_position bigserial PRIMARY KEY,
          transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
          event_id uuid NOT NULL UNIQUE,
          stream_id text NOT NULL,
          stream_position bigint NOT NULL,
          type text NOT NULL,
          data jsonb NOT NULL,
          metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
          recorded_at timestamptz NOT NULL DEFAULT now(),
          UNIQUE (stream_id, stream_position)
        )`.execute(db);
      await sql.raw(ES_APPEND_V1).execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP FUNCTION es_append(text, bigint, jsonb)`.execute(db);
      await sql`DROP TABLE events`.execute(db);
    },
  },
};

/**
 * The visibility rule (docs/decisions/0002-all-reader-visibility.md): a reader stops below the
 * oldest *appending* transaction still open, not below every open transaction. A projector's batch, a
 * state-stored write or any other open transaction no longer hides the log.
 *
 * An append makes itself known to readers: under the append lock it takes its transaction id, then a
 * transaction-level advisory lock keyed by that id (released only when it commits or rolls back), then
 * inserts. A reader first reads those locks (and the snapshot's xmax, for appends that have not taken
 * theirs yet: they will get ids above it), then, in a new snapshot, reads the events below that horizon.
 * Reading the locks first matters: an append that commits in between is then visible to the second read.
 *
 * The append also looks for its events' ids before anything else, so a redelivered batch (a process
 * manager's catch-up following its inline half) answers what is stored without raising an error: a failed
 * statement costs a round trip and, through a pool, may cost the connection.
 */
/** The advisory lock an append holds around its insert (transaction ids and positions in one order). */
export const APPEND_LOCK_KEY = 7340001;
/** The class of the transaction-level lock each append holds, keyed by its transaction id, until it ends. */
export const APPENDING_LOCK_CLASS = 7340002;

eventStoreMigrations['0005_event_store_visibility'] = {
  async up(db: Kysely<unknown>) {
    await sql`DROP FUNCTION es_append(text, bigint, jsonb)`.execute(db);
    await sql
      .raw(
        `
      CREATE FUNCTION es_append(p_stream text, p_expected bigint, p_events jsonb)
      RETURNS TABLE(out_event_id uuid, out_stream_position bigint, out_global_position bigint,
        out_recorded_at timestamptz, out_new boolean)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_current bigint;
        v_ids uuid[];
        v_stored int;
        v_xid bigint;
      BEGIN
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
          RAISE EXCEPTION 'es_append must come first in its transaction' USING ERRCODE = 'ES003';
        END IF;
        v_ids := ARRAY(SELECT (x->>'eventId')::uuid FROM jsonb_array_elements(p_events) AS t(x));
        RETURN QUERY SELECT e.event_id, e.stream_position, e.global_position, e.recorded_at, false
          FROM events e WHERE e.event_id = ANY(v_ids) ORDER BY e.global_position;
        GET DIAGNOSTICS v_stored = ROW_COUNT;
        IF v_stored > 0 THEN
          IF v_stored < cardinality(v_ids) THEN
            RAISE EXCEPTION 'some events of this batch are already stored' USING ERRCODE = 'ES002';
          END IF;
          RETURN;
        END IF;
        SELECT max(e.stream_position) INTO v_current FROM events e WHERE e.stream_id = p_stream;
        IF (p_expected = -1 AND v_current IS NOT NULL) OR (p_expected >= 0 AND v_current IS DISTINCT FROM p_expected)
        THEN
          RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES001', DETAIL = coalesce(v_current::text, '');
        END IF;
        PERFORM pg_advisory_lock(${APPEND_LOCK_KEY});
        BEGIN
          v_xid := pg_current_xact_id()::text::bigint;
          PERFORM pg_advisory_xact_lock_shared(${APPENDING_LOCK_CLASS}, v_xid::bit(32)::int);
          RETURN QUERY INSERT INTO events AS e (event_id, stream_id, stream_position, type, data, metadata)
            SELECT (x->>'eventId')::uuid, p_stream, coalesce(v_current, -1) + n, x->>'type', x->'data',
            coalesce(x->'metadata', '{}'::jsonb)
            FROM jsonb_array_elements(p_events) WITH ORDINALITY AS t(x, n)
            RETURNING e.event_id, e.stream_position, e.global_position, e.recorded_at, true;
        EXCEPTION WHEN OTHERS OR QUERY_CANCELED THEN
          PERFORM pg_advisory_unlock(${APPEND_LOCK_KEY});
          RAISE;
        END;
        PERFORM pg_advisory_unlock(${APPEND_LOCK_KEY});
      END
      $fn$`,
      )
      .execute(db);
    // VOLATILE: each statement takes a new snapshot, so the events are read after the locks.
    await sql
      .raw(
        `
      CREATE FUNCTION es_read_all(p_from bigint, p_limit int) RETURNS SETOF events
      LANGUAGE plpgsql VOLATILE AS $fn$
      DECLARE
        v_xmax bigint;
        v_horizon bigint;
      BEGIN
        -- An append's lock holds the low 32 bits of its transaction id; the epoch is the snapshot's, or the
        -- one before when the id lies more than 2^31 above xmax (ids in flight may lie a little above it).
        SELECT s.xmax, least(s.xmax, min(CASE WHEN (s.base | l.objid::text::bigint) - s.xmax > 2147483648
                                              THEN (s.base | l.objid::text::bigint) - 4294967296
                                              ELSE s.base | l.objid::text::bigint END))
          INTO v_xmax, v_horizon
          FROM (SELECT x AS xmax, (x >> 32) << 32 AS base
                  FROM (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS x) AS c) AS s
          LEFT JOIN pg_locks l
          ON l.locktype = 'advisory' AND l.classid = ${APPENDING_LOCK_CLASS} AND l.objsubid = 2 AND l.granted
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          GROUP BY s.xmax;
        RETURN QUERY SELECT * FROM events e
          WHERE e.global_position > p_from AND e.transaction_id < greatest(coalesce(v_horizon, v_xmax), 0)::text::xid8
          ORDER BY e.global_position LIMIT p_limit;
      END
      $fn$`,
      )
      .execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`DROP FUNCTION es_read_all(bigint, int)`.execute(db);
    await sql`DROP FUNCTION es_append(text, bigint, jsonb)`.execute(db);
    await sql.raw(ES_APPEND_V1).execute(db);
  },
};

/**
 * Fewer plans and no scan of the lock table in the common case (docs/decisions/0044-one-round-trip-per-command.md):
 *
 * - `es_append` checks the expected revision first and inserts with `ON CONFLICT (event_id) DO NOTHING`: a
 *   batch already stored is found by the insert that skips it (all skipped: the stored rows are answered; some:
 *   ES002), or, when the stream has moved on since (a process manager's catch-up resending what the inline
 *   reaction appended), by a look-up of its ids on that path only. An append with revision 'any' looks for its
 *   ids first, as before, so that a redelivery consumes no position. The common append thus plans no
 *   `= ANY(ids)` look-up (a custom plan on every call).
 * - `es_read_all` first reads the events right after the reader's position: those that follow it with no
 *   position missing are committed, and no event can later appear among them, so they are returned without
 *   reading any lock. Only when the first position after the reader is missing (an append in flight, or one that
 *   rolled back) does it fall back to the horizon of record 0002 (the appending locks, then a new snapshot).
 */
eventStoreMigrations['0007_event_store_fewer_plans'] = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `
      CREATE OR REPLACE FUNCTION es_append(p_stream text, p_expected bigint, p_events jsonb)
      RETURNS TABLE(out_event_id uuid, out_stream_position bigint, out_global_position bigint,
        out_recorded_at timestamptz, out_new boolean)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_current bigint;
        v_count int;
        v_done int;
        v_xid bigint;
      BEGIN
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
          RAISE EXCEPTION 'es_append must come first in its transaction' USING ERRCODE = 'ES003';
        END IF;
        v_count := jsonb_array_length(p_events);
        IF p_expected = -2 THEN
          RETURN QUERY SELECT e.event_id, e.stream_position, e.global_position, e.recorded_at, false
            FROM events e WHERE e.event_id IN (SELECT (x->>'eventId')::uuid FROM jsonb_array_elements(p_events) AS t(x))
            ORDER BY e.global_position;
          GET DIAGNOSTICS v_done = ROW_COUNT;
          IF v_done = v_count THEN RETURN; END IF;
          IF v_done > 0 THEN
            RAISE EXCEPTION 'some events of this batch are already stored' USING ERRCODE = 'ES002';
          END IF;
        END IF;
        SELECT max(e.stream_position) INTO v_current FROM events e WHERE e.stream_id = p_stream;
        IF (p_expected = -1 AND v_current IS NOT NULL) OR (p_expected >= 0 AND v_current IS DISTINCT FROM p_expected)
        THEN
          RETURN QUERY SELECT e.event_id, e.stream_position, e.global_position, e.recorded_at, false
            FROM events e WHERE e.event_id IN (SELECT (x->>'eventId')::uuid FROM jsonb_array_elements(p_events) AS t(x))
            ORDER BY e.global_position;
          GET DIAGNOSTICS v_done = ROW_COUNT;
          IF v_done = v_count THEN RETURN; END IF;
          IF v_done > 0 THEN
            RAISE EXCEPTION 'some events of this batch are already stored' USING ERRCODE = 'ES002';
          END IF;
          RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES001', DETAIL = coalesce(v_current::text, '');
        END IF;
        PERFORM pg_advisory_lock(${APPEND_LOCK_KEY});
        BEGIN
          v_xid := pg_current_xact_id()::text::bigint;
          PERFORM pg_advisory_xact_lock_shared(${APPENDING_LOCK_CLASS}, v_xid::bit(32)::int);
          RETURN QUERY INSERT INTO events AS e (event_id, stream_id, stream_position, type, data, metadata)
            SELECT (x->>'eventId')::uuid, p_stream, coalesce(v_current, -1) + n, x->>'type', x->'data',
            coalesce(x->'metadata', '{}'::jsonb)
            FROM jsonb_array_elements(p_events) WITH ORDINALITY AS t(x, n)
            ON CONFLICT (event_id) DO NOTHING
            RETURNING e.event_id, e.stream_position, e.global_position, e.recorded_at, true;
          GET DIAGNOSTICS v_done = ROW_COUNT;
          IF v_done > 0 AND v_done < v_count THEN
            RAISE EXCEPTION 'some events of this batch are already stored' USING ERRCODE = 'ES002';
          END IF;
        EXCEPTION WHEN OTHERS OR QUERY_CANCELED THEN
          PERFORM pg_advisory_unlock(${APPEND_LOCK_KEY});
          RAISE;
        END;
        PERFORM pg_advisory_unlock(${APPEND_LOCK_KEY});
        IF v_done = 0 THEN
          RETURN QUERY SELECT e.event_id, e.stream_position, e.global_position, e.recorded_at, false
            FROM events e WHERE e.event_id IN (SELECT (x->>'eventId')::uuid FROM jsonb_array_elements(p_events) AS t(x))
            ORDER BY e.global_position;
        END IF;
      END
      $fn$`,
      )
      .execute(db);
    await sql
      .raw(
        `
      CREATE OR REPLACE FUNCTION es_read_all(p_from bigint, p_limit int) RETURNS SETOF events
      LANGUAGE plpgsql VOLATILE AS $fn$
      DECLARE
        v_rows events[];
        v_prefix int;
        v_horizon_rows events[];
        v_xmax bigint;
        v_horizon bigint;
      BEGIN
        v_rows := ARRAY(SELECT e FROM events e WHERE e.global_position > p_from ORDER BY e.global_position LIMIT p_limit);
        -- How many of them follow the reader with no position missing.
        SELECT coalesce(max(g.n), 0) INTO v_prefix FROM (
            SELECT i AS n, bool_and((v_rows[i]).global_position - p_from = i) OVER (ORDER BY i) AS gapless
            FROM generate_subscripts(v_rows, 1) AS i
          ) AS g WHERE g.gapless;
        IF v_prefix = cardinality(v_rows) THEN
          RETURN QUERY SELECT * FROM unnest(v_rows);
          RETURN;
        END IF;
        SELECT s.xmax, least(s.xmax, min(CASE WHEN (s.base | l.objid::text::bigint) - s.xmax > 2147483648
                                              THEN (s.base | l.objid::text::bigint) - 4294967296
                                              ELSE s.base | l.objid::text::bigint END))
          INTO v_xmax, v_horizon
          FROM (SELECT x AS xmax, (x >> 32) << 32 AS base
                  FROM (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS x) AS c) AS s
          LEFT JOIN pg_locks l
          ON l.locktype = 'advisory' AND l.classid = ${APPENDING_LOCK_CLASS} AND l.objsubid = 2 AND l.granted
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          GROUP BY s.xmax;
        v_horizon_rows := ARRAY(SELECT e FROM events e
          WHERE e.global_position > p_from AND e.transaction_id < greatest(coalesce(v_horizon, v_xmax), 0)::text::xid8
          ORDER BY e.global_position LIMIT p_limit);
        -- Both are safe answers (nothing can later appear among either); the longer serves the reader better.
        IF cardinality(v_horizon_rows) >= v_prefix THEN
          RETURN QUERY SELECT * FROM unnest(v_horizon_rows);
        ELSE
          RETURN QUERY SELECT * FROM unnest(v_rows[1:v_prefix]);
        END IF;
      END
      $fn$`,
      )
      .execute(db);
  },
  async down() {
    throw new Error('0007_event_store_fewer_plans is not reversible: restore 0005 by dropping and migrating again');
  },
};

/**
 * One round trip per command (docs/decisions/0044-one-round-trip-per-command.md): `es_append_with` appends
 * as `es_append` does and, when the events are new, applies the inline read models' row changes in the same
 * statement, so in the same implicit transaction: no BEGIN, no COMMIT, no statement per row.
 *
 * A row change is a statement the service compiled (Kysely), with its parameters as they would travel on
 * the wire (text, or null), in `p_rows`: `[{ "sql": "update … where id = $1", "params": ["7"] }]`. Values
 * never become SQL text: each `$n` is rewritten to `($1->>(n-1))::type`, a cast of the n-th element of the
 * one jsonb parameter bound to the statement, with the type PostgreSQL infers for `$n` (read once per
 * session from a throw-away PREPARE, then kept in a session setting). A redelivered batch (nothing new)
 * applies nothing, as before.
 */
eventStoreMigrations['0008_event_store_append_with_rows'] = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `
      CREATE FUNCTION es_append_with(p_stream text, p_expected bigint, p_events jsonb, p_rows jsonb)
      RETURNS TABLE(out_event_id uuid, out_stream_position bigint, out_global_position bigint,
        out_recorded_at timestamptz, out_new boolean)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_new boolean := false;
        v_row jsonb;
        v_key text;
        v_sql text;
        v_types regtype[];
      BEGIN
        FOR out_event_id, out_stream_position, out_global_position, out_recorded_at, out_new IN
          SELECT * FROM es_append(p_stream, p_expected, p_events)
        LOOP
          v_new := v_new OR out_new;
          RETURN NEXT;
        END LOOP;
        IF NOT v_new THEN
          RETURN;
        END IF;
        FOR v_row IN SELECT x FROM jsonb_array_elements(p_rows) AS t(x) LOOP
          v_key := 'es_rows.s' || md5(v_row->>'sql');
          v_sql := nullif(current_setting(v_key, true), '');
          IF v_sql IS NULL THEN
            IF EXISTS (SELECT 1 FROM pg_prepared_statements p WHERE p.name = 'es_rows_probe') THEN
              DEALLOCATE es_rows_probe;
            END IF;
            EXECUTE format('PREPARE es_rows_probe AS %s', v_row->>'sql');
            SELECT p.parameter_types INTO v_types FROM pg_prepared_statements p WHERE p.name = 'es_rows_probe';
            DEALLOCATE es_rows_probe;
            v_sql := v_row->>'sql';
            -- Each $n becomes a cast of the jsonb parameter's element n-1, written first as chr(1) (no
            -- compiled statement holds it), so that no rewritten reference is taken for a placeholder.
            FOR i IN 1 .. coalesce(cardinality(v_types), 0) LOOP
              v_sql := regexp_replace(v_sql, '(?<![\\w$])\\$' || i || '(?!\\d)',
                format('(%s->>%s)::%s', chr(1), i - 1, v_types[i]), 'g');
            END LOOP;
            v_sql := replace(v_sql, chr(1), '$1');
            PERFORM set_config(v_key, v_sql, false);
          END IF;
          EXECUTE v_sql USING v_row->'params';
        END LOOP;
      END
      $fn$`,
      )
      .execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`DROP FUNCTION es_append_with(text, bigint, jsonb, jsonb)`.execute(db);
  },
};

/**
 * Row changes in one statement for any writer, not only an append: `es_apply_rows` is the loop that
 * `es_append_with` ran, and the projection runner sends a recorded batch through it (its checkpoint and its
 * rows, docs/decisions/0044-one-round-trip-per-command.md). A change marked `"expect": true` must touch a
 * row, else the statement fails with ES004 and nothing of it stays: a checkpoint that a rebuild moved on.
 */
eventStoreMigrations['0009_event_store_apply_rows'] = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `
      CREATE FUNCTION es_apply_rows(p_rows jsonb) RETURNS void
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_row jsonb;
        v_key text;
        v_sql text;
        v_types regtype[];
        v_count bigint;
      BEGIN
        FOR v_row IN SELECT x FROM jsonb_array_elements(p_rows) AS t(x) LOOP
          v_key := 'es_rows.s' || md5(v_row->>'sql');
          v_sql := nullif(current_setting(v_key, true), '');
          IF v_sql IS NULL THEN
            IF EXISTS (SELECT 1 FROM pg_prepared_statements p WHERE p.name = 'es_rows_probe') THEN
              DEALLOCATE es_rows_probe;
            END IF;
            EXECUTE format('PREPARE es_rows_probe AS %s', v_row->>'sql');
            SELECT p.parameter_types INTO v_types FROM pg_prepared_statements p WHERE p.name = 'es_rows_probe';
            DEALLOCATE es_rows_probe;
            v_sql := v_row->>'sql';
            -- Each $n becomes a cast of the jsonb parameter's element n-1, written first as chr(1) (no
            -- compiled statement holds it), so that no rewritten reference is taken for a placeholder.
            FOR i IN 1 .. coalesce(cardinality(v_types), 0) LOOP
              v_sql := regexp_replace(v_sql, '(?<![\\w$])\\$' || i || '(?!\\d)',
                format('(%s->>%s)::%s', chr(1), i - 1, v_types[i]), 'g');
            END LOOP;
            v_sql := replace(v_sql, chr(1), '$1');
            PERFORM set_config(v_key, v_sql, false);
          END IF;
          EXECUTE v_sql USING v_row->'params';
          IF (v_row->>'expect')::boolean THEN
            GET DIAGNOSTICS v_count = ROW_COUNT;
            IF v_count = 0 THEN
              RAISE EXCEPTION 'an expected row change found nothing to change' USING ERRCODE = 'ES004';
            END IF;
          END IF;
        END LOOP;
      END
      $fn$`,
      )
      .execute(db);
    await sql
      .raw(
        `
      CREATE OR REPLACE FUNCTION es_append_with(p_stream text, p_expected bigint, p_events jsonb, p_rows jsonb)
      RETURNS TABLE(out_event_id uuid, out_stream_position bigint, out_global_position bigint,
        out_recorded_at timestamptz, out_new boolean)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_new boolean := false;
      BEGIN
        FOR out_event_id, out_stream_position, out_global_position, out_recorded_at, out_new IN
          SELECT * FROM es_append(p_stream, p_expected, p_events)
        LOOP
          v_new := v_new OR out_new;
          RETURN NEXT;
        END LOOP;
        IF v_new THEN
          PERFORM es_apply_rows(p_rows);
        END IF;
      END
      $fn$`,
      )
      .execute(db);
  },
  async down() {
    throw new Error('0009_event_store_apply_rows is not reversible: restore 0008 by dropping and migrating again');
  },
};

eventStoreMigrations['0010_event_store_append_positions'] = appendPositionsMigration;
eventStoreMigrations['0011_event_store_row_statements'] = rowStatementsMigration;
