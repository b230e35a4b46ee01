import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Events carry the id of the transaction that wrote them. Appends take a short session-level advisory
 * lock around the insert, so transaction ids and global positions are handed out in the same order;
 * readers of $all stop below the oldest transaction still in flight (pg_snapshot_xmin), so an event that
 * commits late with a lower position is never skipped. The lock is released before COMMIT, so commits of
 * concurrent appends still group (docs/decisions.md, "Event store ordering"). Only the INSERT runs under
 * the lock: the revision check before it is guarded by the unique (stream_id, stream_position) key, and
 * the idempotency lookup runs in the adapter only after a failed append.
 */
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
      await sql`
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
          IF (p_expected = -1 AND v_current IS NOT NULL) OR (p_expected >= 0 AND v_current IS DISTINCT FROM p_expected) THEN
            RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES001', DETAIL = coalesce(v_current::text, '');
          END IF;
          PERFORM pg_advisory_lock(7340001);
          BEGIN
            RETURN QUERY INSERT INTO events AS e (event_id, stream_id, stream_position, type, data, metadata)
              SELECT (x->>'eventId')::uuid, p_stream, coalesce(v_current, -1) + n, x->>'type', x->'data', coalesce(x->'metadata', '{}'::jsonb)
              FROM jsonb_array_elements(p_events) WITH ORDINALITY AS t(x, n)
              RETURNING e.event_id, e.stream_position, e.global_position;
          EXCEPTION WHEN OTHERS OR QUERY_CANCELED THEN
            PERFORM pg_advisory_unlock(7340001);
            RAISE;
          END;
          PERFORM pg_advisory_unlock(7340001);
        END
        $fn$`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP FUNCTION es_append(text, bigint, jsonb)`.execute(db);
      await sql`DROP TABLE events`.execute(db);
    },
  },
};
