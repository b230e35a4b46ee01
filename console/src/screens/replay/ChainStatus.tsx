import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { client, download, unwrap } from '../../api/client';
import { fmt, t } from '../../i18n';
import { ErrorView } from '../../ui/states';

/** What broke, in the reader's words (the service's message is for the offline tool's log). */
const problemOf = (kind: string | undefined) => (kind && t.chain.problems[kind]) ?? t.chain.problems.format;

/**
 * Whether a money stream's hash chain verifies up to the instant the replay shows and up to its latest anchor,
 * as the service's check (the same code as `npm run audit:verify`) says; and the export to check it offline.
 */
export function ChainStatus({ stream, asOf }: { stream: string; asOf?: string }) {
  const status = useQuery({
    queryKey: ['chain-status', stream, asOf],
    queryFn: () =>
      unwrap(
        client.GET('/admin/audit/streams/{stream}/chain', {
          params: { path: { stream }, query: asOf ? { as_of: asOf } : {} },
        }),
      ),
  });
  const [failed, setFailed] = useState<unknown>(null);
  const s = status.data;
  const upTo = s?.as_of ?? s?.chain;
  return (
    <section className="panel" aria-label={t.chain.title}>
      <h3>{t.chain.title}</h3>
      {status.isError ? (
        <ErrorView error={status.error} />
      ) : !s || !upTo ? (
        <p className="muted">{t.common.loading}</p>
      ) : (
        <>
          {s.anchor_refused && (
            // The log no longer extends the previous anchor: said first and loudly (docs/decisions/0071).
            <p role="alert" className="notice error" data-chain="refused">
              {t.chain.anchorRefused(
                s.anchor_refused.anchor_id,
                fmt.dateTime(s.anchor_refused.refused_at),
                s.anchor_refused.previous_anchor_id,
                s.anchor_refused.streams,
              )}{' '}
              {s.anchor_refused.problem && problemOf(s.anchor_refused.problem.kind)}
            </p>
          )}
          {s.as_of && upTo.events === 0 ? (
            // Before the stream's first event there is nothing to verify, and nothing is wrong.
            <p role="status" className="notice" data-chain="as-of">
              {t.chain.nothingYet}
            </p>
          ) : (
            <p role="status" className={`notice ${upTo.verified ? 'ok' : 'error'}`} data-chain="as-of">
              {upTo.verified
                ? s.as_of
                  ? t.chain.verifiedAsOf(upTo.events)
                  : t.chain.verifiedNow(upTo.events)
                : t.chain.broken(upTo.problem?.position ?? null, problemOf(upTo.problem?.kind))}
            </p>
          )}
          {s.as_of && !s.chain.verified && s.chain.problem && (
            <p className="notice error" data-chain="now">
              {t.chain.broken(s.chain.problem.position, problemOf(s.chain.problem.kind))}
            </p>
          )}
          {s.anchor ? (
            <p className={`notice ${s.anchor.verified ? 'ok' : 'error'}`} data-chain="anchor">
              {s.anchor.verified
                ? t.chain.anchored(s.anchor.anchor_id, fmt.dateTime(s.anchor.taken_at), s.anchor.position)
                : `${t.chain.anchorBroken(s.anchor.anchor_id)} ${problemOf(s.anchor.problem?.kind)}`}{' '}
              <span className="muted">
                {t.chain.root}: <code className="hash">{s.anchor.root}</code>
              </span>
            </p>
          ) : (
            <p className="muted" data-chain="anchor">
              {t.chain.notAnchored}
            </p>
          )}
        </>
      )}
      <button
        type="button"
        onClick={() => {
          setFailed(null);
          download(`/admin/audit/streams/${encodeURIComponent(stream)}/export`, {}).catch(setFailed);
        }}
      >
        {t.chain.download}
      </button>{' '}
      <span className="muted">{t.chain.verifyHint}</span>
      {failed !== null && <ErrorView error={failed} />}
    </section>
  );
}
