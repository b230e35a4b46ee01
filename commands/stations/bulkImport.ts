import Papa from 'papaparse';
import { sql } from 'kysely';
import { z } from 'zod';
import { DomainError, unprocessable, type ErrorId } from '../../domain/errors.js';
import type { Db } from '../../infra/db/database.js';
import type { Logger } from '../../infra/logger.js';
import { DEFAULT_CITY, upsertStation, type StationFields } from './stationCommands.js';
import { COLUMN_NAMES, columnOf, REQUIRED_COLUMNS, templateHeaders, type HeaderLanguage } from './importColumns.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
export const INLINE_MAX_ROWS = 100;
export const MAX_ROWS = 2000;

const EXAMPLES = [
  [
    'Llenadero La Carlota',
    'Av. Francisco de Miranda, Los Dos Caminos',
    '10.4930',
    '-66.8290',
    'AGUA',
    'Llenado de cisternas',
    'Frente a la base aérea',
    'Caracas',
    '06:00',
    '18:00',
  ],
  [
    'Estación de Servicio El Paraíso',
    'Av. Páez, El Paraíso',
    '10.4880',
    '-66.9330',
    'GASOLINA',
    '',
    'Al lado de la plaza',
    'Caracas',
    '',
    '',
  ],
  [
    'Pozo Comunal Petare',
    'Calle Lecuna, Petare',
    '10.4770',
    '-66.8070',
    'AGUA',
    'Pozo con bomba eléctrica',
    '',
    'Caracas',
    '07:00',
    '15:30',
  ],
];

/** The CSV template, with a BOM so that spreadsheet programs read the accents as UTF-8. */
export const templateCsv = (withExamples: boolean, headers: HeaderLanguage): string =>
  `\uFEFF${Papa.unparse(
    { fields: templateHeaders(headers), data: withExamples ? EXAMPLES : [] },
    { newline: '\r\n' },
  )}\r\n`;

export interface ImportRow {
  line: number;
  values: Record<string, string>;
}

export interface ImportReport {
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  skipped_rows: { line: number; reason: string }[];
}

const fileError = (code: ErrorId, message: string, details?: Record<string, unknown>) =>
  unprocessable(code, message, details);

/**
 * The bytes as text: UTF-8 only (a byte-order mark is dropped), or 422 InvalidEncoding; nothing in it, 422 EmptyFile.
 */
export const decodeUpload = (bytes: Uint8Array): string => {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw fileError('InvalidEncoding', 'The file is not valid UTF-8 text.');
  }
  if (text.includes('\u0000')) throw fileError('InvalidEncoding', 'The file is not a text file.');
  if (!text.trim()) throw fileError('EmptyFile', 'The file is empty.');
  return text;
};

/**
 * Rows of a CSV (delimiter detected: comma or semicolon), keyed by the column each header names in either
 * language (importColumns.ts); other headers are kept folded and ignored. Lines count from the
 * header (line 1), as a spreadsheet shows them; blank lines are skipped. 422 MissingHeaders names the
 * required columns missing, EmptyFile when no data row follows the header, TooManyRows past MAX_ROWS.
 */
const blankRow = Object.fromEntries(COLUMN_NAMES.map((c) => [c, '']));

export const parseImport = (text: string): ImportRow[] => {
  const records: { line: number; cells: string[] }[] = [];
  let newlines = 0;
  let pos = 0;
  Papa.parse<string[]>(text, {
    step: (r) => {
      records.push({ line: newlines + 1, cells: r.data });
      const end = r.meta.cursor;
      for (let i = pos; i < end; i++) if (text.charCodeAt(i) === 10) newlines++;
      pos = end;
    },
  });
  const nonBlank = records.filter((r) => r.cells.some((c) => c.trim() !== ''));
  const [header, ...data] = nonBlank;
  if (!header) throw fileError('EmptyFile', 'The file is empty.');
  const columns = header.cells.map(columnOf);
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length)
    throw fileError('MissingHeaders', `Missing required columns: ${missing.join(', ')}.`, { missing });
  if (data.length === 0) throw fileError('EmptyFile', 'The file has a header but no rows.');
  if (data.length > MAX_ROWS)
    throw fileError('TooManyRows', `At most ${MAX_ROWS} rows per file; this one has ${data.length}.`, {
      max_rows: MAX_ROWS,
      total_rows: data.length,
    });
  return data.map((r) => ({
    line: r.line,
    values: { ...blankRow, ...Object.fromEntries(columns.map((c, i) => [c, (r.cells[i] ?? '').trim()])) },
  }));
};

const optional = (max: number) =>
  z
    .string()
    .max(max)
    .transform((v) => v || null);
const time = z.union([
  z.literal('').transform(() => null),
  z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM'),
]);
/** A spreadsheet with a decimal comma ("10,49") means the same number. */
const coordinate = (min: number, max: number) =>
  z
    .string()
    .min(1, 'is required')
    .transform((v) => Number(v.includes('.') ? v : v.replace(',', '.')))
    .pipe(
      z
        .number({ message: 'must be a number' })
        .min(min, `must be between ${min} and ${max}`)
        .max(max, `must be between ${min} and ${max}`),
    );

const ImportRowSchema = z.object({
  name: z.string().min(1, 'is required').max(160),
  address: z.string().min(1, 'is required').max(280),
  latitude: coordinate(-90, 90),
  longitude: coordinate(-180, 180),
  tipo: z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(['AGUA', 'GASOLINA'], { message: 'must be AGUA or GASOLINA' })),
  description: optional(1000),
  landmark: optional(280),
  city: z.string().max(120),
  opening_time: time,
  closing_time: time,
});

/** A row's station, or why the row is skipped. */
export const fieldsOfRow = (row: ImportRow): StationFields | string => {
  const r = ImportRowSchema.safeParse(row.values);
  if (!r.success) return r.error.issues.map((i) => `${i.path.join('.') || 'row'}: ${i.message}`).join('; ');
  const v = r.data;
  return {
    name: v.name,
    address: v.address,
    latitude: v.latitude,
    longitude: v.longitude,
    stationType: v.tipo === 'AGUA' ? 'WATER' : 'FUEL',
    description: v.description,
    landmark: v.landmark,
    city: v.city || DEFAULT_CITY,
    openingTime: v.opening_time,
    closingTime: v.closing_time,
    isVerified: true,
  };
};

/**
 * Imports rows one by one, each in its own transaction: a row that names a live station of the same name
 * within 50 m updates it, any other valid row creates a station, an invalid row is skipped with its reason.
 * Running the same file twice therefore creates nothing new (a job retried after a crash is safe).
 */
export const importRows = async (db: Db, rows: ImportRow[], now: () => Date): Promise<ImportReport> => {
  const report: ImportReport = { processed: 0, created: 0, updated: 0, skipped: 0, skipped_rows: [] };
  for (const row of rows) {
    report.processed++;
    const fields = fieldsOfRow(row);
    if (typeof fields === 'string') {
      report.skipped++;
      report.skipped_rows.push({ line: row.line, reason: fields });
      continue;
    }
    try {
      report[await upsertStation(db, fields, now())]++;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      report.skipped++;
      report.skipped_rows.push({ line: row.line, reason: `${err.code}: ${err.message}` });
    }
  }
  return report;
};

export const createImportJob = async (
  db: Db,
  adminId: number,
  text: string,
  totalRows: number,
  now: Date,
): Promise<number> => {
  const { id } = await db
    .insertInto('station_import_jobs')
    .values({
      admin_id: adminId,
      status: 'PENDING',
      total_rows: totalRows,
      content: text,
      report: null,
      error: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
};

/** A job left PROCESSING this long was dropped by a crashed instance; it is taken up again (imports are idempotent). */
const STALE_JOB_MS = 10 * 60_000;

/**
 * Takes the oldest waiting job (SKIP LOCKED: instances never take the same one) and runs it to COMPLETED, or
 * FAILED with the error. Returns whether there was a job.
 */
export const runNextImportJob = async (db: Db, now: () => Date, logger: Logger): Promise<boolean> => {
  const startedAt = now();
  const staleBefore = new Date(startedAt.getTime() - STALE_JOB_MS);
  const claimed = await sql<{ id: number; content: string | null }>`
    UPDATE station_import_jobs SET status = 'PROCESSING', updated_at = ${startedAt}
    WHERE id = (
      SELECT id FROM station_import_jobs
      WHERE status = 'PENDING' OR (status = 'PROCESSING' AND updated_at < ${staleBefore})
      ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
    )
    RETURNING id, content`.execute(db);
  const job = claimed.rows[0];
  if (!job) return false;
  try {
    const report = await importRows(db, parseImport(job.content ?? ''), now);
    await db
      .updateTable('station_import_jobs')
      .set({ status: 'COMPLETED', report: JSON.stringify(report), content: null, updated_at: now() })
      .where('id', '=', job.id)
      .execute();
  } catch (err) {
    logger.error({ err, jobId: job.id }, 'station import job failed');
    const error =
      err instanceof DomainError ? `${err.code}: ${err.message}` : 'The import stopped on an internal error.';
    await db
      .updateTable('station_import_jobs')
      .set({ status: 'FAILED', error, content: null, updated_at: now() })
      .where('id', '=', job.id)
      .execute();
  }
  return true;
};
