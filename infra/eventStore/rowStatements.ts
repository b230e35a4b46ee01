import { sql, type Kysely, type Migration } from 'kysely';

/**
 * `es_apply_rows` rewrites each statement it meets once per session (a throw-away PREPARE tells the types of
 * its parameters), which cost a new session 4–5 ms of server time per statement: every pooled connection of a
 * newly started service paid it for each of the few dozen statements of the inline and report rows, on the
 * first requests. The rewritten text is now also kept in `es_row_statements`, for every session, under the
 * schema it was made for (a digest of the applied migrations' names), so a migration that changes a column's
 * type is never served a rewrite made for the old one.
 */
export const rowStatementsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE TABLE es_row_statements (
      key text NOT NULL,
      schema_version text NOT NULL,
      rewritten text NOT NULL,
      PRIMARY KEY (key, schema_version)
    )`.execute(db);
    await sql
      .raw(
        `
      CREATE OR REPLACE FUNCTION es_apply_rows(p_rows jsonb) RETURNS void
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_row jsonb;
        v_key text;
        v_sql text;
        v_types regtype[];
        v_count bigint;
        v_version text;
      BEGIN
        FOR v_row IN SELECT x FROM jsonb_array_elements(p_rows) AS t(x) LOOP
          v_key := 'es_rows.s' || md5(v_row->>'sql');
          v_sql := nullif(current_setting(v_key, true), '');
          IF v_sql IS NULL THEN
            v_version := nullif(current_setting('es_rows.schema_version', true), '');
            IF v_version IS NULL THEN
              SELECT md5(string_agg(name, ',' ORDER BY name)) INTO v_version FROM kysely_migration;
              PERFORM set_config('es_rows.schema_version', v_version, false);
            END IF;
            SELECT s.rewritten INTO v_sql FROM es_row_statements s
              WHERE s.key = v_key AND s.schema_version = v_version;
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
              INSERT INTO es_row_statements (key, schema_version, rewritten) VALUES (v_key, v_version, v_sql)
                ON CONFLICT DO NOTHING;
            END IF;
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
  },
  async down() {
    throw new Error('0011_event_store_row_statements is not reversible: restore 0010 by dropping and migrating again');
  },
};
