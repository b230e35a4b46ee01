import { t } from '../i18n';

/**
 * A second look before an action that changes money or ends something: the sentence says what will
 * happen (amount, who); nothing is sent until Confirmar.
 */
export const ConfirmPanel = ({
  title,
  message,
  onConfirm,
  onCancel,
  busy = false,
}: {
  title: string;
  message: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
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
  </div>
);
