import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { t } from '../i18n';
import { applyFieldErrors, Input } from './forms';
import { ErrorView } from './states';

/** A one-field form (a reason) whose 422 lands on its field; `action` sends it. */
export const ReasonForm = ({
  title,
  hint,
  onSubmit,
  onCancel,
}: {
  title: string;
  hint?: string;
  onSubmit: (reason: string) => Promise<void>;
  onCancel: () => void;
}) => {
  const { register, handleSubmit, setError, formState } = useForm<{ reason: string }>();
  const [error, setErr] = useState<unknown>(null);
  const submit = handleSubmit(async ({ reason }) => {
    setErr(null);
    try {
      await onSubmit(reason);
    } catch (err) {
      if (!applyFieldErrors(err, setError, ['reason'])) setErr(err);
    }
  });
  return (
    <form className="panel stack" onSubmit={submit} noValidate aria-label={title}>
      <h2>{title}</h2>
      <Input
        label={t.common.reason}
        placeholder={hint}
        error={formState.errors.reason?.message}
        {...register('reason')}
      />
      {error !== null && <ErrorView error={error} />}
      <div className="buttons">
        <button type="submit" className="primary" disabled={formState.isSubmitting}>
          {t.common.confirm}
        </button>
        <button type="button" onClick={onCancel}>
          {t.common.cancel}
        </button>
      </div>
    </form>
  );
};
