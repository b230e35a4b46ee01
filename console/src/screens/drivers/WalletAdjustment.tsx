import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { client, unwrap } from '../../api/client';
import { fmt, t } from '../../i18n';
import { ConfirmPanel } from '../../ui/ConfirmPanel';
import { applyFieldErrors, Input, Select } from '../../ui/forms';
import { ErrorView, Notice } from '../../ui/states';

const d = t.drivers;

interface Values {
  direction: 'CREDIT' | 'DEBIT';
  amount: string;
  reason: string;
}

/**
 * A manual adjustment of the driver's balance (super admins): it moves money, so the form first shows
 * the signed amount and asks to confirm; one Idempotency-Key per form, so a double submit books once.
 */
export const WalletAdjustment = ({ driverId }: { driverId: number }) => {
  const queryClient = useQueryClient();
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [review, setReview] = useState<Values | null>(null);
  const [message, setMessage] = useState('');
  const [error, setErr] = useState<unknown>(null);
  const { register, handleSubmit, setError, formState, reset } = useForm<Values>({
    defaultValues: { direction: 'CREDIT', amount: '', reason: '' },
  });
  const e = formState.errors;
  const check = handleSubmit((v) => {
    setMessage('');
    setReview(v);
  });
  const send = async () => {
    if (!review) return;
    setErr(null);
    try {
      await unwrap(
        client.POST('/admin/drivers/{driverId}/wallet/adjustments', {
          params: { path: { driverId }, header: { 'idempotency-key': key } },
          body: { direction: review.direction, amount: Number(review.amount), reason: review.reason.trim() },
        }),
      );
      setReview(null);
      reset();
      setKey(crypto.randomUUID());
      setMessage(d.adjusted);
      await queryClient.invalidateQueries({ queryKey: ['driver-wallet', driverId] });
      await queryClient.invalidateQueries({ queryKey: ['driver-ledger', driverId] });
    } catch (err) {
      setReview(null);
      if (!applyFieldErrors(err, setError, ['amount', 'reason', 'direction'])) setErr(err);
    }
  };
  return (
    <form className="panel stack" onSubmit={check} noValidate aria-label={d.adjust}>
      <h2>{d.adjust}</h2>
      <div className="row">
        <Select
          label={d.direction}
          options={[
            ['CREDIT', d.credit],
            ['DEBIT', d.debit],
          ]}
          {...register('direction')}
        />
        <Input
          label={d.amount}
          type="number"
          step="0.01"
          min="0.01"
          error={e.amount?.message}
          {...register('amount', {
            validate: (v) => (Number(v) >= 0.01 && Number(v) <= 100_000) || d.amountRange,
          })}
        />
      </div>
      <Input
        label={t.common.reason}
        placeholder={t.payments.reasonHint}
        error={e.reason?.message}
        {...register('reason', {
          validate: (v) => (v.trim().length >= 10 && v.trim().length <= 500) || t.validation.reasonLength,
        })}
      />
      {review ? (
        <ConfirmPanel
          title={d.adjustConfirmTitle}
          message={d.adjustConfirm(fmt.signedUsd(Number(review.amount), review.direction === 'CREDIT'))}
          onConfirm={() => void send()}
          onCancel={() => setReview(null)}
        />
      ) : (
        <div className="buttons">
          <button type="submit" className="primary">
            {d.adjust}
          </button>
        </div>
      )}
      {message && <Notice>{message}</Notice>}
      {error !== null && <ErrorView error={error} />}
    </form>
  );
};
