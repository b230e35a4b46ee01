import { useState, type ReactNode } from 'react';
import { t } from '../i18n';
import { ErrorView, Notice } from './states';

/**
 * A second look before an action that changes money or ends something: the sentence says what will
 * happen (amount, who), and `warning` what it leaves behind; nothing is sent until Confirmar. `children` shows under the buttons (the last
 * try's refusal, say).
 */
export const ConfirmPanel = ({
  title,
  message,
  onConfirm,
  onCancel,
  busy = false,
  warning,
  children,
}: {
  title: string;
  message: string;
  /** What the operator must know before confirming (a debit that leaves a balance below zero). */
  warning?: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  children?: ReactNode;
}) => (
  <div role="alertdialog" aria-label={title} className="panel stack">
    <p>{message}</p>
    {warning && <p className="notice warn">{warning}</p>}
    <div className="buttons">
      <button type="button" className="primary" disabled={busy} onClick={onConfirm}>
        {t.common.confirm}
      </button>
      <button type="button" onClick={onCancel}>
        {t.common.cancel}
      </button>
    </div>
    {children}
  </div>
);

/**
 * A screen's confirmed actions: which one is being asked (`K`), running it once confirmed, and what it
 * answered (its sentence, or the refusal) for `outcome` to show.
 */
export const useConfirmedAction = <K,>() => {
  const [asked, setAsked] = useState<K | null>(null);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<unknown>(null);
  const act = async (run: () => Promise<string>) => {
    setError(null);
    setMessage('');
    try {
      setMessage(await run());
    } catch (err) {
      setError(err);
    } finally {
      setAsked(null);
    }
  };
  const outcome = (
    <>
      {message && <Notice>{message}</Notice>}
      {error !== null && <ErrorView error={error} />}
    </>
  );
  return { asked, ask: setAsked, cancel: () => setAsked(null), act, outcome };
};

/**
 * The end of a form that books money once reviewed (useReviewedSend): its submit button, or the
 * confirmation of what was checked; then what the last booking answered.
 */
export const ReviewedSubmit = ({
  submitLabel,
  confirm,
  busy,
  onConfirm,
  onCancel,
  done,
  error,
}: {
  submitLabel: string;
  /** The confirmation's title, sentence and warning while values wait for it; null otherwise. */
  confirm: { title: string; message: string; warning?: string } | null;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  done: string;
  error: unknown;
}) => (
  <>
    {confirm ? (
      <ConfirmPanel {...confirm} busy={busy} onConfirm={onConfirm} onCancel={onCancel} />
    ) : (
      <div className="buttons">
        <button type="submit" className="primary">
          {submitLabel}
        </button>
      </div>
    )}
    {done && <Notice>{done}</Notice>}
    {error !== null && <ErrorView error={error} />}
  </>
);
