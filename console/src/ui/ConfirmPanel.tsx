import { useState, type ReactNode } from 'react';
import { t } from '../i18n';
import { ErrorView, Notice } from './states';

/**
 * A second look before an action that changes money or ends something: the sentence says what will
 * happen (amount, who); nothing is sent until Confirmar. `children` shows under the buttons (the last
 * try's refusal, say).
 */
export const ConfirmPanel = ({
  title,
  message,
  onConfirm,
  onCancel,
  busy = false,
  children,
}: {
  title: string;
  message: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  children?: ReactNode;
}) => (
  <div role="alertdialog" aria-label={title} className="panel stack">
    <p>{message}</p>
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
