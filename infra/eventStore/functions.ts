import type { StoredFunction } from '../db/migrate.js';

/**
 * The event store's SQL functions, each defined here and nowhere else. Migrations hold tables and data only;
 * these are created or replaced after them whenever their text changes (infra/db/migrate.ts records each one's
 * digest), as the repeatable migrations of Flyway and its kin are.
 */

/** The advisory lock an append holds around its insert (transaction ids and positions in one order). */
export const APPEND_LOCK_KEY = 7340001;
/** The class of the transaction-level lock each append holds, keyed by its transaction id, until it ends. */
export const APPENDING_LOCK_CLASS = 7340002;

/**
 * `es_append_streams(appends)` appends to several streams in one statement, so atomically: `appends` is
 * `[{ "stream", "expected", "events": [{ eventId, type, data, metadata }] }]`, `expected` -1 for no stream,
 * -2 for any, else the revision of the stream's last event (docs/decisions/0101-one-transaction-per-command.md).
 *
 * - Every stream is checked before anything is written. A stale one raises ES001, its DETAIL a JSON object
 *   naming the stream and its revision; nothing of the append stays.
 * - A stream whose events are all stored already answers the stored rows (`out_new` false) and appends
 *   nothing; some of them stored raises ES002. That covers a process manager's catch-up resending what the
 *   command's inline reaction appended, and an effect whose id follows from its cause decided again by a
 *   later command at the stream's current head (a voided receipt's return of its entries). 'any' and a stale
 *   revision look the ids up first; at the head, the insert skips them and the check after it tells.
 * - The insert runs under the append lock with the transaction's id published as a lock (records 0001, 0002):
 *   a reader of $all never skips an event that commits late. The revision checks need no lock: of two appends
 *   that passed them at once, the second finds the positions taken, inserts nothing there, and raises ES001.
 * - It must come first in its transaction (ES003): a transaction id taken before the lock would break the
 *   order of ids and positions. Inline read models write after it, in the same transaction.
 */
const esAppendStreams = `
CREATE OR REPLACE FUNCTION es_append_streams(p_appends jsonb)
RETURNS TABLE(out_stream text, out_event_id uuid, out_stream_position bigint, out_global_position bigint,
  out_recorded_at timestamptz, out_new boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_append jsonb;
  v_stream text;
  v_expected bigint;
  v_count int;
  v_done int;
  v_current bigint;
  v_stale boolean;
  v_pending jsonb := '[]'::jsonb;
  v_total int := 0;
  v_inserted int;
  v_xid bigint;
BEGIN
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'es_append_streams must come first in its transaction' USING ERRCODE = 'ES003';
  END IF;
  FOR v_append IN SELECT x FROM jsonb_array_elements(p_appends) AS t(x) LOOP
    v_stream := v_append->>'stream';
    v_expected := (v_append->>'expected')::bigint;
    v_count := jsonb_array_length(v_append->'events');
    SELECT max(e.stream_position) INTO v_current FROM events e WHERE e.stream_id = v_stream;
    v_stale := (v_expected = -1 AND v_current IS NOT NULL) OR (v_expected >= 0 AND v_current IS DISTINCT FROM v_expected);
    IF v_expected = -2 OR v_stale THEN
      RETURN QUERY SELECT e.stream_id, e.event_id, e.stream_position, e.global_position, e.recorded_at, false
        FROM events e
        WHERE e.event_id IN (SELECT (x->>'eventId')::uuid FROM jsonb_array_elements(v_append->'events') AS t(x))
        ORDER BY e.global_position;
      GET DIAGNOSTICS v_done = ROW_COUNT;
      IF v_done = v_count THEN CONTINUE; END IF;
      IF v_done > 0 THEN
        RAISE EXCEPTION 'some events of this batch are already stored' USING ERRCODE = 'ES002';
      END IF;
      IF v_stale THEN
        RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES001',
          DETAIL = json_build_object('stream', v_stream, 'actual', v_current)::text;
      END IF;
    END IF;
    v_pending := v_pending || jsonb_build_array(jsonb_build_object(
      'stream', v_stream, 'from', coalesce(v_current, -1), 'events', v_append->'events'));
    v_total := v_total + v_count;
  END LOOP;
  IF v_total = 0 THEN RETURN; END IF;
  -- No EXCEPTION block to release the lock on error: it would run the insert in a subtransaction, one more
  -- transaction id and its bookkeeping for every append. The insert refuses nothing instead (DO NOTHING on
  -- either unique key), the lock is released before any RAISE, and the caller releases it after a failure
  -- this function did not raise (a cancelled statement; a lost session releases it by itself).
  PERFORM pg_advisory_lock(${APPEND_LOCK_KEY});
  v_xid := pg_current_xact_id()::text::bigint;
  PERFORM pg_advisory_xact_lock_shared(${APPENDING_LOCK_CLASS}, v_xid::bit(32)::int);
  RETURN QUERY INSERT INTO events AS e (event_id, stream_id, stream_position, type, data, metadata)
    SELECT (x->>'eventId')::uuid, a->>'stream', (a->>'from')::bigint + n, x->>'type', x->'data',
      coalesce(x->'metadata', '{}'::jsonb)
    FROM jsonb_array_elements(v_pending) WITH ORDINALITY AS s(a, k),
      jsonb_array_elements(a->'events') WITH ORDINALITY AS t(x, n)
    ORDER BY k, n
    ON CONFLICT DO NOTHING
    RETURNING e.stream_id, e.event_id, e.stream_position, e.global_position, e.recorded_at, true;
  GET DIAGNOSTICS v_inserted = ROW_COUNT;
  PERFORM pg_advisory_unlock(${APPEND_LOCK_KEY});
  IF v_inserted = v_total THEN RETURN; END IF;
  -- Some events were not inserted: a stream whose events were all stored already (a redelivery, or an effect
  -- decided again at the stream's head), a twin of this append that committed the same events meanwhile, or
  -- another append that took a stream's positions (stale). v_done is now how many of a stream's events this
  -- append stored, v_count how many were stored before it.
  FOR v_append IN SELECT x FROM jsonb_array_elements(v_pending) AS t(x) LOOP
    SELECT count(*) FILTER (WHERE e.transaction_id = v_xid::text::xid8),
        count(*) FILTER (WHERE e.transaction_id <> v_xid::text::xid8)
      INTO v_done, v_count
      FROM events e
      WHERE e.event_id IN (SELECT (x->>'eventId')::uuid FROM jsonb_array_elements(v_append->'events') AS t(x));
    IF v_count = 0 AND v_done < jsonb_array_length(v_append->'events') THEN
      SELECT max(e.stream_position) INTO v_current FROM events e WHERE e.stream_id = v_append->>'stream';
      RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES001',
        DETAIL = json_build_object('stream', v_append->>'stream', 'actual', v_current)::text;
    END IF;
    IF v_count > 0 AND v_count < jsonb_array_length(v_append->'events') THEN
      RAISE EXCEPTION 'some events of this batch are already stored' USING ERRCODE = 'ES002';
    END IF;
  END LOOP;
  -- Each stream is whole, stored by this append or before it: answer the rows stored before it too.
  RETURN QUERY SELECT e.stream_id, e.event_id, e.stream_position, e.global_position, e.recorded_at, false
    FROM events e
    WHERE e.event_id IN (SELECT (x->>'eventId')::uuid
      FROM jsonb_array_elements(v_pending) AS s(a), jsonb_array_elements(a->'events') AS t(x))
      AND e.transaction_id <> v_xid::text::xid8
    ORDER BY e.global_position;
END
$fn$`;

/**
 * `es_read_all(from, limit)`: the events after `from` that no append still in flight can precede
 * (docs/decisions/0002-all-reader-visibility.md). It first reads the events right after the reader's
 * position: those that follow it with no position missing are committed, and no event can later appear among
 * them. Only when the first position after the reader is missing (an append in flight, or one that rolled
 * back) does it read the horizon: the appending locks, then the events below the oldest of them. VOLATILE:
 * each statement takes a new snapshot, so the events are read after the locks.
 */
const esReadAll = `
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
  -- An append's lock holds the low 32 bits of its transaction id; the epoch is the snapshot's, or the one
  -- before when the id lies more than 2^31 above xmax (ids in flight may lie a little above it).
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
$fn$`;

export const eventStoreFunctions: StoredFunction[] = [
  { name: 'es_append_streams', source: esAppendStreams },
  { name: 'es_read_all', source: esReadAll },
];
