import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { client, download, unwrap, type Ok } from '../../api/client';
import { fmt, label, t } from '../../i18n';
import { ERROR_MESSAGES, spanishFieldMessage } from '../../i18n/apiMessages';
import { Field } from '../../ui/forms';
import { ErrorView, Notice, QueryView } from '../../ui/states';

const s = t.stations;
type Report = Ok<'/admin/stations/bulk-import', 'post'>['report'];

/** How often a queued import's status is asked for while it runs. */
const JOB_POLL_MS = 2000;

/**
 * A skipped row's reason in Spanish: "column: message" parts, the column by its header in the Spanish
 * template, or an error id and its sentence.
 */
const reasonOf = (reason: string) =>
  reason
    .split('; ')
    .map((part) => {
      const [head, ...rest] = part.split(': ');
      if (ERROR_MESSAGES[head]) return ERROR_MESSAGES[head];
      return rest.length
        ? `${s.columns[head] ?? head}: ${spanishFieldMessage(rest.join(': '))}`
        : spanishFieldMessage(part);
    })
    .join(' ');

const ImportReport = ({ report }: { report: Report }) => (
  <section className="stack" aria-labelledby="import-report">
    <h2 id="import-report">{s.importReport}</h2>
    <dl className="totals">
      <div>
        <dt>{s.processed}</dt>
        <dd>{report.processed}</dd>
      </div>
      <div>
        <dt>{s.createdCount}</dt>
        <dd>{report.created}</dd>
      </div>
      <div>
        <dt>{s.updatedCount}</dt>
        <dd>{report.updated}</dd>
      </div>
      <div>
        <dt>{s.skipped}</dt>
        <dd>{report.skipped}</dd>
      </div>
    </dl>
    {report.skipped_rows.length > 0 && (
      <div className="table-wrap" tabIndex={0} role="region" aria-label={s.skipped}>
        <table>
          <caption className="sr-only">{s.skipped}</caption>
          <thead>
            <tr>
              <th scope="col">{s.line}</th>
              <th scope="col">{t.common.reason}</th>
            </tr>
          </thead>
          <tbody>
            {report.skipped_rows.map((r) => (
              <tr key={r.line}>
                <td>{r.line}</td>
                <td>{reasonOf(r.reason)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </section>
);

/**
 * The bulk import: the CSV template (empty or with examples), the upload, and its result; a file over 100
 * rows becomes a job whose page follows its status.
 */
export const StationImport = () => {
  const [, navigate] = useLocation();
  const [report, setReport] = useState<Report | null>(null);
  const [fileError, setFileError] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // The operator's template heads its columns in Spanish; the import reads those and the spec's names alike.
  const template = (samples: boolean) =>
    void download('/admin/stations/bulk-import/template', { con_ejemplos: String(samples), encabezados: 'es' }).catch(
      setError,
    );
  const upload = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(null);
    setReport(null);
    const file = new FormData(e.currentTarget).get('file');
    if (!(file instanceof File) || file.size === 0) {
      setFileError(s.fileRequired);
      return;
    }
    setFileError('');
    const form = new FormData();
    form.append('file', file);
    setBusy(true);
    try {
      // The multipart body is built here; openapi-fetch sends a FormData as it is (the browser sets its boundary).
      const data = await unwrap(
        client.POST('/admin/stations/bulk-import', { body: { file: '' }, bodySerializer: () => form }),
      );
      if ('job_id' in data) navigate(`/import/${data.job_id}`);
      else setReport(data.report);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="stack">
      <h1>{s.import}</h1>
      <div className="buttons">
        <button type="button" onClick={() => template(false)}>
          {s.template}
        </button>
        <button type="button" onClick={() => template(true)}>
          {s.templateSamples}
        </button>
      </div>
      <form className="panel stack" onSubmit={(e) => void upload(e)} noValidate aria-label={s.import}>
        <Field label={s.file} error={fileError}>
          {(id, describedBy) => (
            <input
              id={id}
              type="file"
              name="file"
              accept=".csv,.txt,text/csv,text/plain"
              aria-invalid={fileError ? true : undefined}
              aria-describedby={describedBy}
            />
          )}
        </Field>
        {error !== null && <ErrorView error={error} />}
        <div className="buttons">
          <button type="submit" className="primary" disabled={busy}>
            {s.upload}
          </button>
        </div>
      </form>
      {report && <ImportReport report={report} />}
      <Link href="/">{s.title}</Link>
    </section>
  );
};

/** A queued import's status, asked again every few seconds until it completes or fails. */
export const ImportJob = () => {
  const { jobId } = useParams<{ jobId: string }>();
  const id = Number(jobId);
  const job = useQuery({
    queryKey: ['station-import', id],
    queryFn: () => unwrap(client.GET('/admin/stations/bulk-import/{jobId}', { params: { path: { jobId: id } } })),
    refetchInterval: (q) =>
      q.state.data && (q.state.data.status === 'COMPLETED' || q.state.data.status === 'FAILED') ? false : JOB_POLL_MS,
  });
  return (
    <section className="stack">
      <h1>
        {s.job} #{id}
      </h1>
      <QueryView query={job}>
        {(j) => (
          <>
            <dl className="kv panel">
              <dt>{s.estadoLabel}</dt>
              <dd>{label(s.jobStatus, j.status)}</dd>
              <dt>{s.jobRows}</dt>
              <dd>{fmt.number(j.total_rows)}</dd>
              <dt>{s.createdAt}</dt>
              <dd>{fmt.dateTime(j.created_at)}</dd>
              <dt>{s.updatedAt}</dt>
              <dd>{fmt.dateTime(j.updated_at)}</dd>
            </dl>
            {j.status === 'PENDING' && <Notice>{s.jobQueued(j.total_rows)}</Notice>}
            {j.error && <Notice kind="error">{reasonOf(j.error)}</Notice>}
            {j.report && <ImportReport report={j.report} />}
          </>
        )}
      </QueryView>
      <Link href="/">{s.title}</Link>
    </section>
  );
};
