import { useState } from 'react';
import { t } from '../i18n';
import { ErrorView } from './states';

interface Words {
  activate: string;
  deactivate: string;
  confirmTitle: string;
  confirmToggle: (name: string, on: boolean) => string;
}

/**
 * Switching something on or off (a payment method, a form, an admin), said in words and confirmed
 * first: customers or the admin feel the change at once.
 */
export const ConfirmToggle = ({
  name,
  active,
  words,
  onConfirm,
}: {
  name: string;
  active: boolean;
  words: Words;
  onConfirm: () => Promise<void>;
}) => {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!asking)
    return (
      <button
        type="button"
        onClick={() => {
          setError(null);
          setAsking(true);
        }}
        aria-label={`${active ? words.deactivate : words.activate} ${name}`}
      >
        {active ? words.deactivate : words.activate}
      </button>
    );
  return (
    <div role="alertdialog" aria-label={words.confirmTitle} className="stack">
      <p>{words.confirmToggle(name, !active)}</p>
      <div className="buttons">
        <button
          type="button"
          className="primary"
          onClick={() =>
            void onConfirm().then(
              () => setAsking(false),
              (err: unknown) => setError(err),
            )
          }
        >
          {t.common.confirm}
        </button>
        <button type="button" onClick={() => setAsking(false)}>
          {t.common.cancel}
        </button>
      </div>
      {error !== null && <ErrorView error={error} />}
    </div>
  );
};
