import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { client, unwrap } from '../../api/client';
import { fmt, t } from '../../i18n';
import { amountOf, amountRule } from '../../ui/amount';
import { ReviewedSubmit } from '../../ui/ConfirmPanel';
import { applyFieldErrors, Input, reasonRule, Select } from '../../ui/forms';
import { useReviewedSend } from '../../ui/useReviewedSend';

const d = t.drivers;

interface Values {
  direction: 'CREDIT' | 'DEBIT';
  amount: string;
  reason: string;
}

/**
 * A manual adjustment of the driver's balance (super admins): it moves money, so the form first shows
 * the signed amount, and the balance a debit leaves when it is below zero, and asks to confirm.
 */
export const WalletAdjustment = ({ driverId }: { driverId: number }) => {
  const queryClient = useQueryClient();
  const [message, setMessage] = useState('');
  const wallet = useQuery({
    queryKey: ['driver-wallet', driverId],
    queryFn: () => unwrap(client.GET('/admin/drivers/{driverId}/wallet', { params: { path: { driverId } } })),
  });
  const { register, handleSubmit, setError, formState, reset } = useForm<Values>({
    defaultValues: { direction: 'CREDIT', amount: '', reason: '' },
  });
  const e = formState.errors;
  const adjustment = useReviewedSend<Values>(
    async (v, key) => {
      await unwrap(
        client.POST('/admin/drivers/{driverId}/wallet/adjustments', {
          params: { path: { driverId }, header: { 'idempotency-key': key } },
          body: { direction: v.direction, amount: amountOf(v.amount, 2), reason: v.reason.trim() },
        }),
      );
      reset();
      setMessage(d.adjusted);
      await queryClient.invalidateQueries({ queryKey: ['driver-wallet', driverId] });
      await queryClient.invalidateQueries({ queryKey: ['driver-ledger', driverId] });
    },
    (err) => applyFieldErrors(err, setError, ['amount', 'reason', 'direction']),
  );
  const check = handleSubmit((v) => {
    setMessage('');
    adjustment.ask(v);
  });
  const review = adjustment.review;
  const amount = review ? amountOf(review.amount, 2) : 0;
  const balance = wallet.data?.wallet.balanceUSD;
  const after = balance === undefined ? undefined : Math.round((balance - amount) * 100) / 100;
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
          inputMode="decimal"
          autoComplete="off"
          error={e.amount?.message}
          {...register('amount', { validate: amountRule(2, { min: 0.01, max: 100_000, message: d.amountRange }) })}
        />
      </div>
      <Input
        label={t.common.reason}
        placeholder={t.payments.reasonHint}
        error={e.reason?.message}
        {...register('reason', reasonRule)}
      />
      <ReviewedSubmit
        submitLabel={d.adjust}
        confirm={
          review && {
            title: d.adjustConfirmTitle,
            message: d.adjustConfirm(fmt.signedUsd(amount, review.direction === 'CREDIT')),
            warning:
              review.direction === 'DEBIT' && after !== undefined && after < 0
                ? t.amount.belowZero(fmt.usd(after))
                : undefined,
          }
        }
        busy={adjustment.busy}
        onConfirm={() => void adjustment.confirm()}
        onCancel={adjustment.cancel}
        done={message}
        error={adjustment.error}
      />
    </form>
  );
};
