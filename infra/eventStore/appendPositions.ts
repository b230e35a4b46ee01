import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A row change may name the log position of an event it is appended with (`positions`: parameter index and
 * event id; projections/recordedRows.ts): the wallet ledger keeps each entry's position as its id and order.
 * `es_append_with` now fills those parameters from what `es_append` returned before applying the rows, so such
 * an append is one statement too instead of a transaction of one statement per row.
 */
export const appendPositionsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `
      CREATE OR REPLACE FUNCTION es_append_with(p_stream text, p_expected bigint, p_events jsonb, p_rows jsonb)
      RETURNS TABLE(out_event_id uuid, out_stream_position bigint, out_global_position bigint,
        out_recorded_at timestamptz, out_new boolean)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_new boolean := false;
        v_positions jsonb := '{}';
        v_rows jsonb := p_rows;
        v_row jsonb;
        v_at jsonb;
      BEGIN
        FOR out_event_id, out_stream_position, out_global_position, out_recorded_at, out_new IN
          SELECT * FROM es_append(p_stream, p_expected, p_events)
        LOOP
          v_new := v_new OR out_new;
          v_positions := v_positions || jsonb_build_object(out_event_id::text, out_global_position::text);
          RETURN NEXT;
        END LOOP;
        IF NOT v_new THEN
          RETURN;
        END IF;
        FOR i IN 0 .. jsonb_array_length(p_rows) - 1 LOOP
          v_row := p_rows->i;
          IF v_row ? 'positions' THEN
            FOR v_at IN SELECT x FROM jsonb_array_elements(v_row->'positions') AS t(x) LOOP
              IF NOT v_positions ? (v_at->>1) THEN
                RAISE EXCEPTION 'a row change names the position of an event not in its append' USING ERRCODE = 'ES005';
              END IF;
              v_row := jsonb_set(v_row, ARRAY['params', v_at->>0], v_positions->(v_at->>1));
            END LOOP;
            v_rows := jsonb_set(v_rows, ARRAY[i::text], v_row);
          END IF;
        END LOOP;
        PERFORM es_apply_rows(v_rows);
      END
      $fn$`,
      )
      .execute(db);
  },
  async down() {
    throw new Error(
      '0010_event_store_append_positions is not reversible: restore 0009 by dropping and migrating again',
    );
  },
};
