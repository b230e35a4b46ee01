import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, forwardRef } from 'react';
import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { ApiError } from '../api/client';
import { t } from '../i18n';
import { spanishFieldMessage } from '../i18n/apiMessages';
import { ErrorView, Notice } from './states';

/** A labelled field with its error, tied to the input for screen readers. */
export const Field = ({
  label,
  error,
  children,
}: {
  label: string;
  error?: string;
  children: (id: string, describedBy?: string) => ReactNode;
}) => {
  const id = useId();
  const errId = `${id}-err`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, error ? errId : undefined)}
      {error && (
        <span id={errId} className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
};

export const Input = forwardRef<
  HTMLInputElement,
  InputHTMLAttributes<HTMLInputElement> & { label: string; error?: string }
>(function Input({ label, error, ...rest }, ref) {
  return (
    <Field label={label} error={error}>
      {(id, describedBy) => (
        <input id={id} ref={ref} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...rest} />
      )}
    </Field>
  );
});

export const Select = forwardRef<
  HTMLSelectElement,
  SelectHTMLAttributes<HTMLSelectElement> & {
    label: string;
    error?: string;
    options: readonly (readonly [string, string])[];
  }
>(function Select({ label, error, options, ...rest }, ref) {
  return (
    <Field label={label} error={error}>
      {(id, describedBy) => (
        <select id={id} ref={ref} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...rest}>
          {options.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
});

/** The rule of a reason the service records with a booking or a decision: 10 to 500 characters. */
export const reasonRule = {
  validate: (v: string) => (v.trim().length >= 10 && v.trim().length <= 500) || t.validation.reasonLength,
};

/**
 * Puts a 422's details.fieldErrors on the form's fields (react-hook-form), and returns whether any
 * field took one; the rest of the error is for the form's own message. `fields` names the keys the
 * form shows, or says where a key lands (a row's input, say), null for nowhere.
 */
export const applyFieldErrors = <F extends FieldValues>(
  err: unknown,
  setError: UseFormSetError<F>,
  fields: readonly Path<F>[] | ((key: string) => Path<F> | null),
): boolean => {
  if (!(err instanceof ApiError) || err.status !== 422) return false;
  const target =
    typeof fields === 'function'
      ? fields
      : (key: string) => ((fields as readonly string[]).includes(key) ? (key as Path<F>) : null);
  let placed = false;
  for (const [key, messages] of Object.entries(err.fieldErrors)) {
    const field = target(key);
    if (field !== null) {
      setError(field, { type: 'server', message: messages.map(spanishFieldMessage).join(' ') });
      placed = true;
    }
  }
  return placed;
};

/** A form's submit (and, when editing, cancel) buttons, then what the last try answered. */
export const FormFooter = ({
  submitLabel,
  onCancel,
  message,
  error,
}: {
  submitLabel: string;
  onCancel?: () => void;
  message: string;
  error: unknown;
}) => (
  <>
    <div className="buttons">
      <button type="submit" className="primary">
        {submitLabel}
      </button>
      {onCancel && (
        <button type="button" onClick={onCancel}>
          {t.common.cancel}
        </button>
      )}
    </div>
    {message && <Notice>{message}</Notice>}
    {error !== null && <ErrorView error={error} />}
  </>
);
