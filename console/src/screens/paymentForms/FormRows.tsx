import { useFieldArray, type Control, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { t } from '../../i18n';
import { Input, Select } from '../../ui/forms';

const p = t.paymentForms;
const INPUT_TYPES = ['text', 'phone', 'bank', 'reference', 'date', 'email', 'amount'] as const;
const DISPLAY_TYPES = ['text', 'copy', 'image', 'link'] as const;

/** A datum the customer reports; `index` is the form's own number for it, kept across edits. */
interface FieldRow {
  index: number;
  label: string;
  required: boolean;
  hint: string;
  inputType: (typeof INPUT_TYPES)[number];
}

/** An item the customer is shown to pay: a text, a value to copy, an image or a link. */
interface DisplayRow {
  index: number;
  type: (typeof DISPLAY_TYPES)[number];
  label: string;
  content: string;
}

export const CATEGORIES = ['pago_movil', 'exchange', 'bank_transfer', 'usd_transfer', 'other'] as const;
export const CURRENCIES = ['VES', 'USD', 'USDT'] as const;

/** A manual payment form as its editor holds it. */
export interface FormValues {
  name: string;
  internalName: string;
  category: (typeof CATEGORIES)[number];
  currency: (typeof CURRENCIES)[number];
  icon: string;
  sortOrder: string;
  fields: FieldRow[];
  display: DisplayRow[];
}

interface RowsProps {
  control: Control<FormValues>;
  register: UseFormRegister<FormValues>;
  errors: FieldErrors<FormValues>;
}

// A new row takes the next free number: the numbers customers' reports refer to never move.
const nextIndex = (rows: { index: number }[]) => rows.reduce((max, r) => Math.max(max, r.index + 1), 0);

const ListError = ({ message }: { message?: string }) =>
  message ? (
    <span className="field-error" role="alert">
      {message}
    </span>
  ) : null;

/** The data the customer must report back: label, whether it is required, a hint and how it is checked. */
export const FieldRows = ({ control, register, errors }: RowsProps) => {
  const rows = useFieldArray({ control, name: 'fields', keyName: 'key', rules: { minLength: 1 } });
  return (
    <fieldset className="stack">
      <legend>{p.fieldRows}</legend>
      {rows.fields.map((row, i) => {
        const e = errors.fields?.[i];
        return (
          <fieldset key={row.key} className="row">
            <legend>{p.fieldRow(i + 1)}</legend>
            <Input
              label={p.fieldLabel}
              error={e?.label?.message}
              {...register(`fields.${i}.label`, { validate: (x) => x.trim() !== '' || p.labelRequired })}
            />
            <Select
              label={p.inputTypeLabel}
              options={INPUT_TYPES.map((x) => [x, p.inputTypes[x]] as const)}
              error={e?.inputType?.message}
              {...register(`fields.${i}.inputType`)}
            />
            <Input label={p.fieldHint} error={e?.hint?.message} {...register(`fields.${i}.hint`)} />
            <label className="check">
              <input type="checkbox" {...register(`fields.${i}.required`)} /> {p.fieldRequired}
            </label>
            <button type="button" onClick={() => rows.remove(i)} disabled={rows.fields.length === 1}>
              {p.removeField(i + 1)}
            </button>
          </fieldset>
        );
      })}
      <ListError message={errors.fields?.root?.message ?? errors.fields?.message} />
      <div className="buttons">
        <button
          type="button"
          onClick={() =>
            rows.append({ index: nextIndex(rows.fields), label: '', required: true, hint: '', inputType: 'text' })
          }
        >
          {p.addField}
        </button>
      </div>
    </fieldset>
  );
};

/** What the customer sees to pay: account numbers to copy, instructions, a QR code image, a link. */
export const DisplayRows = ({ control, register, errors }: RowsProps) => {
  const rows = useFieldArray({ control, name: 'display', keyName: 'key' });
  return (
    <fieldset className="stack">
      <legend>{p.displayRows}</legend>
      {rows.fields.length === 0 && <p className="muted">{p.noDisplay}</p>}
      {rows.fields.map((row, i) => {
        const e = errors.display?.[i];
        return (
          <fieldset key={row.key} className="row">
            <legend>{p.displayRow(i + 1)}</legend>
            <Select
              label={p.displayTypeLabel}
              options={DISPLAY_TYPES.map((x) => [x, p.displayTypes[x]] as const)}
              error={e?.type?.message}
              {...register(`display.${i}.type`)}
            />
            <Input
              label={p.displayLabel}
              error={e?.label?.message}
              {...register(`display.${i}.label`, { validate: (x) => x.trim() !== '' || p.labelRequired })}
            />
            <Input
              label={p.displayContent}
              error={e?.content?.message}
              {...register(`display.${i}.content`, { validate: (x) => x.trim() !== '' || p.contentRequired })}
            />
            <button type="button" onClick={() => rows.remove(i)}>
              {p.removeDisplay(i + 1)}
            </button>
          </fieldset>
        );
      })}
      <ListError message={errors.display?.root?.message ?? errors.display?.message} />
      <div className="buttons">
        <button
          type="button"
          onClick={() => rows.append({ index: nextIndex(rows.fields), type: 'copy', label: '', content: '' })}
        >
          {p.addDisplay}
        </button>
      </div>
    </fieldset>
  );
};
