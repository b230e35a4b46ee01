import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm, type Path } from 'react-hook-form';
import { client, unwrap } from '../../api/client';
import { t } from '../../i18n';
import { applyFieldErrors, FormFooter, Input, Select } from '../../ui/forms';
import { CATEGORIES, CURRENCIES, DisplayRows, FieldRows, type FormValues } from './FormRows';
import type { PaymentForm } from './PaymentForms';

const p = t.paymentForms;

const TOP = ['name', 'internalName', 'category', 'currency', 'icon', 'sortOrder'] as const;

/**
 * Where an API field error lands: on its own input (`fields.2.hint`, `display.0.content`); an error of a
 * row's hidden number on the row's label; an error of a whole list under the list.
 */
const fieldOf = (key: string): Path<FormValues> | null => {
  if ((TOP as readonly string[]).includes(key)) return key as Path<FormValues>;
  if (key === 'fields' || key === 'display') return `${key}.root` as Path<FormValues>;
  const row = /^(fields|display)\.(\d+)\.(\w+)$/.exec(key);
  if (!row) return null;
  const [, list, i, part] = row;
  return `${list}.${i}.${part === 'index' ? 'label' : part}` as Path<FormValues>;
};

const valuesOf = (f: PaymentForm | null): FormValues =>
  f
    ? {
        name: f.name,
        internalName: f.internal_name,
        category: f.category,
        currency: f.currency,
        icon: f.icon ?? '',
        sortOrder: String(f.sort_order),
        fields: f.fields.map((x) => ({
          index: x.index,
          label: x.label,
          required: x.required,
          hint: x.hint ?? '',
          inputType: x.input_type,
        })),
        display: f.display.map((d) => ({ ...d })),
      }
    : {
        name: '',
        internalName: '',
        category: 'pago_movil',
        currency: 'VES',
        icon: '',
        sortOrder: '0',
        fields: [{ index: 0, label: '', required: true, hint: '', inputType: 'text' }],
        display: [],
      };

/**
 * A manual payment form, new or edited, with everything the API keeps of it: what the customer sees to
 * pay (display), what they report back (fields: required or not, a hint, how it is checked), its icon.
 * Each API refusal lands on the input it names.
 */
export const FormEditor = ({ editing, onDone }: { editing: PaymentForm | null; onDone: () => void }) => {
  const queryClient = useQueryClient();
  const [message, setMessage] = useState('');
  const [error, setErr] = useState<unknown>(null);
  const { register, handleSubmit, setError, formState, reset, control } = useForm<FormValues>({
    defaultValues: valuesOf(editing),
  });
  const errors = formState.errors;
  const submit = handleSubmit(async (v) => {
    setMessage('');
    setErr(null);
    const body = {
      name: v.name,
      internalName: v.internalName,
      category: v.category,
      currency: v.currency,
      icon: v.icon.trim() || null,
      fields: v.fields.map((f) => ({ ...f, hint: f.hint.trim() || null })),
      display: v.display,
      sortOrder: Number(v.sortOrder),
    };
    try {
      if (editing)
        await unwrap(client.PATCH('/admin/payment-forms/{id}', { params: { path: { id: editing.id } }, body }));
      else await unwrap(client.POST('/admin/payment-forms', { body }));
      if (!editing) reset(valuesOf(null));
      setMessage(p.saved);
      await queryClient.invalidateQueries({ queryKey: ['payment-forms'] });
      if (editing) onDone();
    } catch (err) {
      if (!applyFieldErrors(err, setError, fieldOf)) setErr(err);
    }
  });
  const title = editing ? p.editTitle(editing.name) : p.new;
  return (
    <form className="panel stack" onSubmit={(e) => void submit(e)} noValidate aria-label={title}>
      <h3>{title}</h3>
      <Input label={p.name} error={errors.name?.message} {...register('name')} />
      <Input label={p.internalName} error={errors.internalName?.message} {...register('internalName')} />
      <Select
        label={p.category}
        options={CATEGORIES.map((c) => [c, p.categories[c]] as const)}
        error={errors.category?.message}
        {...register('category')}
      />
      <Select
        label={p.currency}
        options={CURRENCIES.map((c) => [c, p.currencies[c]] as const)}
        error={errors.currency?.message}
        {...register('currency')}
      />
      <Input label={p.icon} error={errors.icon?.message} {...register('icon')} />
      <DisplayRows control={control} register={register} errors={errors} />
      <FieldRows control={control} register={register} errors={errors} />
      <Input label={p.sortOrder} type="number" step="1" error={errors.sortOrder?.message} {...register('sortOrder')} />
      <FormFooter
        submitLabel={editing ? t.common.save : p.create}
        onCancel={editing ? onDone : undefined}
        message={message}
        error={error}
      />
    </form>
  );
};
