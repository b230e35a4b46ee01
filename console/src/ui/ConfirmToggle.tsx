import { useState } from 'react';
import { ConfirmPanel } from './ConfirmPanel';
import { ErrorView } from './states';

interface Words {
  activate: string;
  deactivate: string;
  confirmTitle: string;
  confirmToggle: (name: string, on: boolean) => string;
}

/**
 * Switching something on or off (a payment method, a form, an admin), said in words and confirmed
 * first: customers or the admin feel the change at once. A refusal stays in the panel.
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
    <ConfirmPanel
      title={words.confirmTitle}
      message={words.confirmToggle(name, !active)}
      onCancel={() => setAsking(false)}
      onConfirm={() =>
        void onConfirm().then(
          () => setAsking(false),
          (err: unknown) => setError(err),
        )
      }
    >
      {error !== null && <ErrorView error={error} />}
    </ConfirmPanel>
  );
};
