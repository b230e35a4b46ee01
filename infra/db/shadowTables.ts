import type { SqlClient } from './sqlPool.js';

/**
 * Turns one session into a private copy of the schema's tables, empty but for `withRows`: for each table
 * of `public` a temporary table of the same name and shape (`LIKE … INCLUDING ALL`: columns, defaults,
 * constraints, indexes, identities), and for each sequence a temporary one standing where the real one
 * stands. PostgreSQL looks a table or sequence name up in the session's temporary schema first, so every
 * unqualified name this session uses (Kysely's statements, the event store's functions) resolves to its
 * copy: nothing it writes reaches a real table, no other session sees it, and it all goes when the session
 * ends. Sequences start where the real ones stand and never move them.
 *
 * The session must be new (a pooled connection's prepared statements were planned against the real tables)
 * and must never be pooled afterwards (SqlPool.openSession).
 */
export const shadowTables = async (session: SqlClient, withRows: readonly string[]): Promise<void> => {
  // One statement: a temporary table per real one, in one round trip, whatever the number of tables.
  await session.query(
    `DO $shadow$
    DECLARE
      r record;
      v_last bigint;
      v_called boolean;
    BEGIN
      FOR r IN SELECT c.relname FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.relname LOOP
        EXECUTE format('CREATE TEMPORARY TABLE %I (LIKE public.%I INCLUDING ALL)', r.relname, r.relname);
      END LOOP;
      -- An identity's sequence came with its table; the others (named in defaults and by nextval) now.
      FOR r IN SELECT c.relname FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S'
          AND NOT EXISTS (SELECT 1 FROM pg_class t WHERE t.relnamespace = pg_my_temp_schema() AND t.relname = c.relname)
        LOOP
        EXECUTE format('CREATE TEMPORARY SEQUENCE %I', r.relname);
      END LOOP;
      -- A copied default still names the real sequence (by its oid): it names the copy instead.
      FOR r IN SELECT t.relname AS tab, a.attname AS col, s.relname AS seq
        FROM pg_attrdef d
        JOIN pg_class t ON t.oid = d.adrelid AND t.relnamespace = pg_my_temp_schema()
        JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
        JOIN pg_depend dep ON dep.classid = 'pg_attrdef'::regclass AND dep.objid = d.oid
          AND dep.refclassid = 'pg_class'::regclass
        JOIN pg_class s ON s.oid = dep.refobjid AND s.relkind = 'S' AND s.relnamespace = 'public'::regnamespace
        LOOP
        EXECUTE format('ALTER TABLE pg_temp.%I ALTER COLUMN %I SET DEFAULT nextval(%L::regclass)',
          r.tab, r.col, 'pg_temp.' || quote_ident(r.seq));
      END LOOP;
      FOR r IN SELECT c.relname FROM pg_class c
        WHERE c.relnamespace = pg_my_temp_schema() AND c.relkind = 'S'
          AND EXISTS (SELECT 1 FROM pg_class p WHERE p.relnamespace = 'public'::regnamespace AND p.relname = c.relname)
        LOOP
        EXECUTE format('SELECT last_value, is_called FROM public.%I', r.relname) INTO v_last, v_called;
        PERFORM setval(format('pg_temp.%I', r.relname)::regclass, v_last, v_called);
      END LOOP;
    END
    $shadow$`,
  );
  for (const table of withRows)
    await session.query(
      `INSERT INTO pg_temp.${quoteIdent(table)} OVERRIDING SYSTEM VALUE SELECT * FROM public.${quoteIdent(table)}`,
    );
};

const quoteIdent = (name: string): string => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain table name: ${name}`);
  return `"${name}"`;
};
