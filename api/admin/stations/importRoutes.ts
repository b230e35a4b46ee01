import express, { type Request, type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { forbidden, notFound, validationError } from '../../../domain/errors.js';
import type { ApiContext } from '../../apiContext.js';
import {
  createImportJob,
  decodeUpload,
  importRows,
  INLINE_MAX_ROWS,
  MAX_FILE_BYTES,
  parseImport,
  templateCsv,
} from '../../../commands/stations/bulkImport.js';
import { HEADER_LANGUAGES } from '../../../commands/stations/importColumns.js';
import { findImportJob } from '../../../stores/stations/stationStore.js';
import { requireRole } from '../../auth.js';
import { defineRoute, FileBody } from '../../route.js';
import { ImportJobSchema, importJobView, ImportReportSchema } from './views.js';
import { queryInteger } from '../../schemas.js';

const tooLarge = () => validationError({ file: ['must be at most 5 MB'] });

/** Multipart framing adds a little to the file; the file itself is held to MAX_FILE_BYTES after parsing. */
const rawUpload = express.raw({
  type: [
    'multipart/form-data',
    'text/csv',
    'text/plain',
    'application/csv',
    'application/vnd.ms-excel',
    'application/octet-stream',
  ],
  limit: MAX_FILE_BYTES + 64 * 1024,
});

const uploadBody: RequestHandler = (req, res, next) =>
  rawUpload(req, res, (err?: unknown) =>
    next((err as { type?: string } | undefined)?.type === 'entity.too.large' ? tooLarge() : err),
  );

/**
 * The file's bytes: the `file` part of a multipart/form-data body (the spec's form; parsed by the platform's
 * own Fetch FormData parser, no upload library), or a CSV sent as the raw body (text/csv).
 */
const fileBytes = async (req: Request): Promise<Uint8Array> => {
  const type = req.headers['content-type'] ?? '';
  if (!Buffer.isBuffer(req.body))
    throw validationError({ file: ['is required (multipart/form-data with a file part, or a text/csv body)'] });
  if (!/^multipart\/form-data/i.test(type)) return req.body;
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(req.body), { headers: { 'content-type': type } }).formData();
  } catch {
    throw validationError({ file: ['is required: the multipart body could not be read'] });
  }
  const file = form.get('file');
  if (!file || typeof file === 'string') throw validationError({ file: ['is required'] });
  if (file.name && !/\.(csv|txt)$/i.test(file.name)) throw validationError({ file: ['must be a .csv or .txt file'] });
  return new Uint8Array(await file.arrayBuffer());
};

const TemplateQuery = z.object({
  con_ejemplos: z
    .preprocess((v) => (v === undefined ? 'false' : v), z.enum(['true', 'false', '1', '0']))
    .transform((v) => v === 'true' || v === '1'),
  encabezados: z
    .enum(HEADER_LANGUAGES)
    .default('en')
    .openapi({
      description:
        "The header row: the spec's column names (en), or their Spanish headers (es: Nombre, Dirección, …) for a " +
        'person to fill in. The import reads either.',
    }),
});

const JobParams = z.object({ jobId: queryInteger(1, Number.MAX_SAFE_INTEGER) });

export const stationImportRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');
  const tags = ['admin-stations'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/stations/bulk-import/template',
      summary:
        'CSV template plantilla_estaciones.csv (con_ejemplos=true adds three sample rows; encabezados=es ' +
        'writes Spanish headers)',
      tags,
      guards: admin,
      query: TemplateQuery,
      responses: { 200: { description: 'plantilla_estaciones.csv', schema: FileBody, mediaType: 'text/csv' } },
      errors: { 403: ['Forbidden'] },
    },
    ({ query, res }) => {
      res
        .type('text/csv; charset=utf-8')
        .set('Content-Disposition', 'attachment; filename="plantilla_estaciones.csv"')
        .send(templateCsv(query.con_ejemplos, query.encabezados));
      return undefined;
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/stations/bulk-import',
      summary:
        'Import stations from a CSV (multipart field `file`, or a text/csv body) whose headers are the ' +
        "template's, in English or in Spanish; up to 100 rows inline, up to 2,000 as a job",
      tags,
      guards: [...admin, uploadBody],
      bodyContent: {
        'multipart/form-data': z.object({
          file: FileBody.openapi({ description: 'The CSV file (.csv or .txt, UTF-8 or Latin-1, at most 5 MB)' }),
        }),
        'text/csv': FileBody,
      },
      responses: {
        200: { description: 'Imported inline', schema: z.object({ report: ImportReportSchema }) },
        202: {
          description: 'Queued as a job',
          schema: z.object({ job_id: z.number().int(), status: z.literal('PENDING'), total_rows: z.number().int() }),
        },
      },
      errors: {
        403: ['Forbidden'],
        422: {
          ids: ['EmptyFile', 'InvalidEncoding', 'MissingHeaders', 'TooManyRows'],
          description: 'ValidationError (file), InvalidEncoding, EmptyFile, MissingHeaders, TooManyRows',
        },
      },
    },
    async ({ req, res, actor }) => {
      const bytes = await fileBytes(req);
      if (bytes.byteLength > MAX_FILE_BYTES) throw tooLarge();
      const text = decodeUpload(bytes);
      const rows = parseImport(text);
      if (rows.length <= INLINE_MAX_ROWS) return { report: await importRows(ctx.db, rows, () => ctx.clock.now()) };
      const jobId = await createImportJob(ctx.db, actor.id, text, rows.length, ctx.clock.now());
      res.status(202);
      return { job_id: jobId, status: 'PENDING' as const, total_rows: rows.length };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/stations/bulk-import/:jobId',
      summary: 'Import job status (only for the admin who launched it)',
      tags,
      guards: admin,
      params: JobParams,
      responses: { 200: { description: 'The job', schema: ImportJobSchema } },
      errors: { 403: { ids: ['Forbidden'], description: 'Forbidden' }, 404: ['ImportJobNotFound'] },
    },
    async ({ params, actor }) => {
      const job = await findImportJob(ctx.db, params.jobId);
      if (!job) throw notFound('ImportJobNotFound', 'No such import job.');
      if (job.admin_id !== actor.id)
        throw forbidden('Forbidden', 'Only the admin who launched this import may read it.');
      return importJobView(job);
    },
  );
};
