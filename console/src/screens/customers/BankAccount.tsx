import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { client, unwrap } from '../../api/client';
import { fmt, t } from '../../i18n';
import { ConfirmPanel } from '../../ui/ConfirmPanel';
import { bankName, bankOptions } from '../../i18n/banks';
import { applyFieldErrors, Input, Select } from '../../ui/forms';
import { ErrorView, Notice } from '../../ui/states';

const b = t.bankAccount;
interface Values {
  idNumber: string;
  phone: string;
  bankCode: string;
}

/** The customer's saved bank account, as the back office reads, replaces and removes it. */
export const BankAccount = ({ customerId }: { customerId: number }) => {
  const queryClient = useQueryClient();
  const key = ['customer-bank-account', customerId];
  const account = useQuery({
    queryKey: key,
    queryFn: () =>
      unwrap(client.GET('/admin/customers/{customerId}/bank-account', { params: { path: { customerId } } })),
  });
  const [message, setMessage] = useState('');
  const [removing, setRemoving] = useState(false);
  const [error, setErr] = useState<unknown>(null);
  const { register, handleSubmit, setError, formState } = useForm<Values>({ defaultValues: { bankCode: '0102' } });
  const save = handleSubmit(async (v) => {
    setMessage('');
    setErr(null);
    try {
      await unwrap(
        client.PUT('/admin/customers/{customerId}/bank-account', { params: { path: { customerId } }, body: v }),
      );
      setMessage(b.saved);
      await queryClient.invalidateQueries({ queryKey: key });
    } catch (err) {
      if (!applyFieldErrors(err, setError, ['idNumber', 'phone', 'bankCode'])) setErr(err);
    }
  });
  const remove = async () => {
    setErr(null);
    try {
      await unwrap(client.DELETE('/admin/customers/{customerId}/bank-account', { params: { path: { customerId } } }));
      setRemoving(false);
      setMessage(b.removed);
      await queryClient.invalidateQueries({ queryKey: key });
    } catch (err) {
      setErr(err);
    }
  };
  const current = account.data?.account ?? null;
  return (
    <section className="panel stack" aria-labelledby="bank-account-title">
      <h2 id="bank-account-title">{b.title}</h2>
      {current ? (
        <dl className="kv" data-testid="bank-account">
          <dt>{b.idNumber}</dt>
          <dd>{current.id_number}</dd>
          <dt>{b.phone}</dt>
          <dd>{current.phone}</dd>
          <dt>{b.bank}</dt>
          <dd>{bankName(current.bank_code)}</dd>
          <dt>{b.updatedAt}</dt>
          <dd>{fmt.dateTime(current.updated_at)}</dd>
        </dl>
      ) : (
        account.isSuccess && <p className="muted">{b.none}</p>
      )}
      <form className="stack" onSubmit={(e) => void save(e)} noValidate aria-label={b.save}>
        <Input label={b.idNumber} error={formState.errors.idNumber?.message} {...register('idNumber')} />
        <Input label={b.phone} type="tel" error={formState.errors.phone?.message} {...register('phone')} />
        <Select
          label={b.bank}
          options={bankOptions()}
          error={formState.errors.bankCode?.message}
          {...register('bankCode')}
        />
        <div className="buttons">
          <button type="submit" className="primary">
            {b.save}
          </button>
          {current && !removing && (
            <button type="button" onClick={() => setRemoving(true)}>
              {b.remove}
            </button>
          )}
        </div>
      </form>
      {removing && (
        <ConfirmPanel
          title={b.remove}
          message={b.confirmRemove}
          onConfirm={() => void remove()}
          onCancel={() => setRemoving(false)}
        />
      )}
      {message && <Notice>{message}</Notice>}
      {error !== null && <ErrorView error={error} />}
    </section>
  );
};
