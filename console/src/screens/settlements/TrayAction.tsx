import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { client, unwrap, type Ok } from '../../api/client';
import { bankName } from '../../i18n/banks';
import { fmt, label, t } from '../../i18n';
import { applyFieldErrors, Input, reasonRule } from '../../ui/forms';
import { ErrorView, QueryView } from '../../ui/states';

const s = t.settlements;

export type TrayItem = Ok<'/admin/settlements/tray', 'get'>['items'][number];
export type TrayActionKind = 'retry' | 'annul' | 'external';
type Receipt = Ok<'/admin/settlements/receipts/{id}', 'get'>['receipt'];

/** The bolivars the receipt pays: its latest payout order's amount, else its net at the cutoff's rate. */
const amountBsOf = (r: Receipt) => (r.payout_orders.at(-1)?.amount_bs_cents ?? r.net_bs_cents) / 100;

/** What the money action moves and to whom: the operator reads it before confirming. */
export const Beneficiary = ({ receipt: r }: { receipt: Receipt }) => (
  <dl className="kv" aria-label={s.secondLook}>
    <dt>{s.payable}</dt>
    <dd data-field="amount_usd">{fmt.usd(r.payable_usd)}</dd>
    <dt>{s.amountBs}</dt>
    <dd data-field="amount_bs">{fmt.bs(amountBsOf(r))}</dd>
    <dt>{s.beneficiary}</dt>
    <dd data-field="beneficiary_name">{r.beneficiary_name ?? '—'}</dd>
    <dt>{s.idNumber}</dt>
    <dd data-field="beneficiary_id_number">{r.beneficiary_id_number ?? '—'}</dd>
    <dt>{s.method}</dt>
    <dd>{label(t.enums.payoutMethod, r.payout_method)}</dd>
    <dt>{s.bank}</dt>
    <dd data-field="beneficiary_bank">{bankName(r.beneficiary_bank_code)}</dd>
    <dt>{r.payout_method === 'PAGO_MOVIL' ? s.phone : s.account}</dt>
    <dd data-field="payout_account">
      {r.payout_account ?? '—'}
      {r.beneficiary_account_type ? ` (${label(t.enums.accountType, r.beneficiary_account_type)})` : ''}
    </dd>
  </dl>
);

interface ActionValues {
  reason: string;
  reference: string;
  checked: boolean;
}

/**
 * A tray action with a second look: the receipt's amount (USD and bolivars) and beneficiary, a box the
 * operator ticks to say they checked them, and (annul, mark paid externally) a reason of 10 to 500
 * characters. Retry sends the money again, so it asks the same confirmation (the API takes no reason).
 */
export const TrayAction = ({
  kind,
  item,
  onDone,
}: {
  kind: TrayActionKind;
  item: TrayItem;
  onDone: (message: string) => void;
}) => {
  const queryClient = useQueryClient();
  const receipt = useQuery({
    queryKey: ['receipt', item.id],
    queryFn: () => unwrap(client.GET('/admin/settlements/receipts/{id}', { params: { path: { id: item.id } } })),
  });
  const { register, handleSubmit, setError, formState } = useForm<ActionValues>();
  const [error, setErr] = useState<unknown>(null);
  const submit = handleSubmit(async ({ reason, reference }) => {
    setErr(null);
    try {
      const path = { id: item.id };
      let message: string;
      if (kind === 'retry') {
        const r = await unwrap(client.POST('/admin/settlements/receipts/{id}/retry', { params: { path } }));
        message = s.retried(label(t.enums.receiptStatus, r.receipt.status));
      } else if (kind === 'annul') {
        await unwrap(client.POST('/admin/settlements/receipts/{id}/annul', { params: { path }, body: { reason } }));
        message = s.annulled;
      } else {
        await unwrap(
          client.POST('/admin/settlements/receipts/{id}/mark-external', {
            params: { path },
            body: { reason, reference },
          }),
        );
        message = s.markedExternal;
      }
      await queryClient.invalidateQueries();
      onDone(message);
    } catch (err) {
      if (!applyFieldErrors(err, setError, ['reason', 'reference'])) setErr(err);
    }
  });
  const title = `${kind === 'retry' ? s.retry : kind === 'annul' ? s.annul : s.markExternal}: ${item.receipt_number}`;
  const e = formState.errors;
  return (
    <form className="panel stack" onSubmit={submit} noValidate aria-label={title}>
      <h2>{title}</h2>
      <p>{s.actionWarning[kind]}</p>
      <QueryView query={receipt}>{(data) => <Beneficiary receipt={data.receipt} />}</QueryView>
      {kind !== 'retry' && (
        <Input
          label={t.common.reason}
          placeholder={t.payments.reasonHint}
          error={e.reason?.message}
          {...register('reason', { required: t.validation.reasonLength, ...reasonRule })}
        />
      )}
      {kind === 'external' && (
        <Input
          label={t.common.reference}
          error={e.reference?.message}
          maxLength={191}
          {...register('reference', {
            required: t.validation.required,
            validate: (v) => v.trim().length > 0 || t.validation.required,
          })}
        />
      )}
      <label>
        <input
          type="checkbox"
          aria-invalid={e.checked ? true : undefined}
          {...register('checked', { required: t.validation.checkFirst })}
        />{' '}
        {s.checked}
      </label>
      {e.checked?.message && (
        <span className="field-error" role="alert">
          {e.checked.message}
        </span>
      )}
      {error !== null && <ErrorView error={error} />}
      <div className="buttons">
        <button type="submit" className="primary" disabled={formState.isSubmitting || !receipt.isSuccess}>
          {t.common.confirm}
        </button>
        <button type="button" onClick={() => onDone('')}>
          {t.common.cancel}
        </button>
      </div>
    </form>
  );
};
