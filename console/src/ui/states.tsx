import { useEffect, useState, type ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { t } from '../i18n';
import { ERROR_MESSAGES, spanishFieldMessage } from '../i18n/apiMessages';

/** Seconds left before a 503's Retry-After, counting down. */
const Countdown = ({ seconds }: { seconds: number }) => {
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    const id = setInterval(() => setLeft((s) => Math.max(0, s - 1)), 1000);
    return () => clearInterval(id);
  }, []);
  return <>{t.errors.retryIn(left)}</>;
};

/** An error as the user reads it: 403 a clear refusal, 503 a retry, a 422 the API's message. */
export const ErrorView = ({ error, retry }: { error: unknown; retry?: () => void }) => {
  if (error instanceof ApiError) {
    if (error.status === 403)
      return (
        <p role="alert" className="notice error">
          {t.errors.forbidden}
        </p>
      );
    if (error.status === 404)
      return (
        <p role="alert" className="notice error">
          {t.errors.notFound}
        </p>
      );
    if (error.status === 503 || error.status === 429)
      return (
        <div role="alert" className="notice warn">
          {t.errors.unavailable}{' '}
          {error.retryAfterSeconds !== undefined && <Countdown seconds={error.retryAfterSeconds} />}{' '}
          {retry && (
            <button type="button" onClick={retry}>
              {t.errors.retry}
            </button>
          )}
        </div>
      );
    const fields = Object.entries(error.fieldErrors);
    return (
      <div role="alert" className="notice error">
        <p>{(error.body?.error && ERROR_MESSAGES[error.body.error]) ?? t.errors.generic}</p>
        {fields.length > 0 && (
          <ul>
            {fields.map(([field, messages]) => (
              <li key={field}>
                {t.fields[field as keyof typeof t.fields] ?? field}: {messages.map(spanishFieldMessage).join(' ')}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  return (
    <div role="alert" className="notice error">
      {error instanceof TypeError ? t.errors.network : t.errors.generic}{' '}
      {retry && (
        <button type="button" onClick={retry}>
          {t.errors.retry}
        </button>
      )}
    </div>
  );
};

/** Loading, error or the data of one query. */
export function QueryView<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (query.isPending)
    return (
      <p aria-busy="true" className="muted">
        {t.common.loading}
      </p>
    );
  if (query.isError) return <ErrorView error={query.error} retry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}

export const Notice = ({ kind = 'ok', children }: { kind?: 'ok' | 'error' | 'warn'; children: ReactNode }) => (
  <p role="status" className={`notice ${kind}`}>
    {children}
  </p>
);
