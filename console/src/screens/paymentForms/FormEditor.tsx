import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ApiError, client, unwrap } from '../../api/client';
import { t } from '../../i18n';
import { spanishFieldMessage } from '../../i18n/apiMessages';
import { applyFieldErrors, Field, Input, Select } from '../../ui/forms';
import { ErrorView, Notice } from '../../ui/states';
import type { PaymentForm } from './PaymentForms';

const p = t.paymentForms;
const CATEGORIES = ['pago_movil', 'exchange', 'bank_transfer', 'usd_transfer', 'other'] as const;
const CURRENCIES = ['VES', 'USD', 'USDT'] as const;

interface Values {
  name: string;
  internalName: string;
  category: (typeof CATEGORIES)[number];
  currency: (typeof CURRENCIES)[number];
  fields: string;
  sortOrder: string;
}

const FIELDS = ['name', 'internalName', 'category', 'currency', 'fields', 'sortOrder'] as const;

/**
 * A manual payment form, new or edited. The data it asks customers for are typed one per line; an
 * edit replaces them whole, as the API does, keeping each line's input type when its label stays.
 */
export const FormEditor = ({ editing, onDone }: { editing: PaymentForm | null; onDone: () => void }) => {
  const queryClient = useQueryClient();
  const [message, setMessage] = useState('');
  const [error, setErr] = useState<unknown>(null);
  const { register, handleSubmit, setError, formState, reset } = useForm<Values>({
    defaultValues: editing
      ? {
          name: editing.name,
          internalName: editing.internal_name,
          category: editing.category,
          currency: editing.currency,
          fields: editing.fields.map((f) => f.label).join('\n'),
          sortOrder: String(editing.sort_order),
        }
      : { category: 'pago_movil', currency: 'VES', sortOrder: '0', fields: '' },
  });
  const submit = handleSubmit(async (v) => {
    setMessage('');
    setErr(null);
    const known = new Map(editing?.fields.map((f) => [f.label, f]) ?? []);
    const fields = v.fields
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((label, index) => {
        const was = known.get(label);
        return {
          index,
          label,
          required: was?.required ?? true,
          hint: was?.hint ?? null,
          inputType: was?.input_type ?? 'text',
        };
      });
    const body = {
      name: v.name,
      internalName: v.internalName,
      category: v.category,
      currency: v.currency,
      fields,
      sortOrder: Number(v.sortOrder),
    };
    try {
      if (editing)
        await unwrap(client.PATCH('/admin/payment-forms/{id}', { params: { path: { id: editing.id } }, body }));
      else await unwrap(client.POST('/admin/payment-forms', { body }));
      if (!editing) reset();
      setMessage(p.saved);
      await queryClient.invalidateQueries({ queryKey: ['payment-forms'] });
      if (editing) onDone();
    } catch (err) {
      // A field's error may come for one of its lines (fields.0.label): it belongs on the lines' box.
      if (err instanceof ApiError && err.status === 422) {
        const lines = Object.entries(err.fieldErrors).filter(([k]) => k.startsWith('fields.'));
        if (lines.length)
          setError('fields', {
            type: 'server',
            message: lines.flatMap(([, m]) => m.map(spanishFieldMessage)).join(' '),
          });
        if (applyFieldErrors(err, setError, FIELDS) || lines.length) return;
      }
      setErr(err);
    }
  });
  const title = editing ? p.editTitle(editing.name) : p.new;
  return (
    <form className="panel stack" onSubmit={(e) => void submit(e)} noValidate aria-label={title}>
      <h3>{title}</h3>
      <Input label={p.name} error={formState.errors.name?.message} {...register('name')} />
      <Input label={p.internalName} error={formState.errors.internalName?.message} {...register('internalName')} />
      <Select
        label={p.category}
        options={CATEGORIES.map((c) => [c, p.categories[c]] as const)}
        error={formState.errors.category?.message}
        {...register('category')}
      />
      <Select
        label={p.currency}
        options={CURRENCIES.map((c) => [c, p.currencies[c]] as const)}
        error={formState.errors.currency?.message}
        {...register('currency')}
      />
      <Field label={p.fieldLabels} error={formState.errors.fields?.message}>
        {(id, describedBy) => (
          <textarea
            id={id}
            rows={3}
            placeholder={p.fieldLabelsHint}
            aria-invalid={formState.errors.fields ? true : undefined}
            aria-describedby={describedBy}
            {...register('fields', { validate: (x) => x.trim() !== '' || p.fieldLabelsRequired })}
          />
        )}
      </Field>
      <Input
        label={p.sortOrder}
        type="number"
        step="1"
        error={formState.errors.sortOrder?.message}
        {...register('sortOrder')}
      />
      <div className="buttons">
        <button type="submit" className="primary">
          {editing ? t.common.save : p.create}
        </button>
        {editing && (
          <button type="button" onClick={onDone}>
            {t.common.cancel}
          </button>
        )}
      </div>
      {message && <Notice>{message}</Notice>}
      {error !== null && <ErrorView error={error} />}
    </form>
  );
};
