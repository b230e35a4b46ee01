import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ApiError } from '../../api/client';
import type { components, paths } from '../../api/schema';
import { fmt, t } from '../../i18n';
import { amountRule, readAmount } from '../../ui/amount';
import { ConfirmPanel } from '../../ui/ConfirmPanel';
import { applyFieldErrors, Input, Select } from '../../ui/forms';
import { Picker } from '../../ui/Picker';
import { ErrorView, Notice } from '../../ui/states';

const p = t.promotions;
type Promotion = components['schemas']['Promotion'];
export type Body = NonNullable<
  paths['/admin/promotions/{promotionId}']['patch']['requestBody']
>['content']['application/json'];

interface Values {
  name: string;
  description: string;
  audience: 'CLIENT' | 'DRIVER';
  credit_scope: 'ANY' | 'ORDERS' | 'SURPLUS';
  milestone_orders: string;
  milestone_basis: 'LIFETIME' | 'CAMPAIGN';
  amount_usd: string;
  starts_at: string;
  ends_at: string;
  max_grants: string;
  /** Sent from the city picker's own input; here for its refusals to land on it. */
  city_id: string;
}

/** The fields a first grant freezes (they would change what earlier recipients got). */
const FROZEN = ['audience', 'credit_scope', 'milestone_orders', 'milestone_basis', 'amount_usd'] as const;
const FIELDS = ['name', 'description', ...FROZEN, 'starts_at', 'ends_at', 'max_grants', 'city_id'] as const;

const valuesOf = (pr?: Promotion): Values => ({
  name: pr?.name ?? '',
  description: pr?.description ?? '',
  audience: pr?.audience ?? 'CLIENT',
  credit_scope: pr?.credit_scope ?? 'ANY',
  milestone_orders: pr ? String(pr.milestone_orders) : '',
  milestone_basis: pr?.milestone_basis ?? 'LIFETIME',
  amount_usd: pr ? fmt.typed(pr.amount_usd) : '',
  starts_at: pr?.starts_at?.slice(0, 10) ?? '',
  ends_at: pr?.ends_at?.slice(0, 10) ?? '',
  max_grants: pr?.max_grants === null || pr?.max_grants === undefined ? '' : String(pr.max_grants),
  city_id: pr?.city_id ? String(pr.city_id) : '',
});

/** A typed amount or count its rule accepted (a stored campaign's is always readable); NaN otherwise. */
const numberOr = (v: string, decimals: number) => {
  const r = readAmount(v, decimals);
  return r.ok ? r.value : Number.NaN;
};
const optionalCount = (v: string) => v.trim() === '' || amountRule(0)(v);

/** The whole body from the form (dates are calendar days: midnight UTC, as the API reads a date). */
export type FullBody = Required<Omit<Body, 'active'>>;

const bodyOf = (v: Values, cityId: number | null): FullBody => ({
  name: v.name.trim(),
  description: v.description.trim() || null,
  audience: v.audience,
  credit_scope: v.audience === 'DRIVER' ? null : v.credit_scope,
  milestone_orders: numberOr(v.milestone_orders, 0),
  milestone_basis: v.milestone_basis,
  amount_usd: numberOr(v.amount_usd, 2),
  city_id: cityId,
  starts_at: v.starts_at || null,
  ends_at: v.ends_at || null,
  max_grants: v.max_grants.trim() === '' ? null : numberOr(v.max_grants, 0),
});

/**
 * A campaign's terms, to create or to edit. Saving grants money to future recipients, so it first shows
 * the amount per grant and asks to confirm. An edit sends only what changed (the API merges), and once
 * the campaign has granted, the frozen terms are shown but not editable.
 */
export const PromotionForm = ({
  promotion,
  title,
  onSave,
}: {
  promotion?: Promotion;
  title: string;
  onSave: (body: Body) => Promise<string>;
}) => {
  const frozen = (promotion?.grants_count ?? 0) > 0;
  const [review, setReview] = useState<Body | null>(null);
  const [message, setMessage] = useState('');
  const [error, setErr] = useState<unknown>(null);
  const { register, handleSubmit, setError, clearErrors, watch, formState } = useForm<Values>({
    values: valuesOf(promotion),
  });
  const e = formState.errors;
  const audience = watch('audience');
  const check = handleSubmit((v, event) => {
    setMessage('');
    setErr(null);
    const picked = new FormData(event?.target as HTMLFormElement).get('city_id');
    const cityId = picked ? Number(picked) : null;
    const full = bodyOf(v, cityId);
    if (!promotion) return setReview(full);
    const stored = bodyOf(valuesOf(promotion), promotion.city_id);
    const changed = Object.fromEntries(
      Object.entries(full).filter(([k, value]) => {
        if (frozen && (FROZEN as readonly string[]).includes(k)) return false;
        const before = stored[k as keyof typeof stored];
        return value !== before && !(Number.isNaN(value) && Number.isNaN(before));
      }),
    ) as Body;
    if (Object.keys(changed).length === 0) return setMessage(p.saved);
    setReview(changed);
  });
  const send = async () => {
    if (!review) return;
    try {
      setMessage(await onSave(review));
    } catch (err) {
      if (err instanceof ApiError && err.body?.error === 'PromotionAlreadyGranted') {
        const fields = ((err.body as { details?: { fields?: string[] } }).details?.fields ?? []) as (keyof Values)[];
        for (const f of fields) setError(f, { type: 'server', message: p.frozenField });
        if (fields.length === 0) setErr(err);
      } else if (!applyFieldErrors(err, setError, FIELDS)) setErr(err);
    } finally {
      setReview(null);
    }
  };
  const amount = review?.amount_usd ?? promotion?.amount_usd;
  return (
    <form
      className="panel stack"
      // The city is the picker's own input, not a registered field: its refusal is cleared before each try.
      onSubmit={(event) => {
        clearErrors('city_id');
        return check(event);
      }}
      noValidate
      aria-label={title}
    >
      <h2>{title}</h2>
      {frozen && <Notice kind="warn">{p.frozen}</Notice>}
      <div className="row">
        <Input label={p.name} maxLength={120} error={e.name?.message} {...register('name')} />
        <Input label={p.description} maxLength={255} error={e.description?.message} {...register('description')} />
      </div>
      <div className="row">
        <Select
          label={p.audienceLabel}
          disabled={frozen}
          error={e.audience?.message}
          options={Object.entries(p.audience)}
          {...register('audience')}
        />
        {audience === 'CLIENT' && (
          <Select
            label={p.scopeLabel}
            disabled={frozen}
            error={e.credit_scope?.message}
            options={Object.entries(p.scope)}
            {...register('credit_scope')}
          />
        )}
        <Input
          label={p.amount}
          inputMode="decimal"
          autoComplete="off"
          disabled={frozen}
          error={e.amount_usd?.message}
          {...register('amount_usd', { validate: amountRule(2) })}
        />
      </div>
      <div className="row">
        <Input
          label={p.milestone}
          inputMode="numeric"
          autoComplete="off"
          disabled={frozen}
          error={e.milestone_orders?.message}
          {...register('milestone_orders', { validate: amountRule(0) })}
        />
        <Select
          label={p.basisLabel}
          disabled={frozen}
          error={e.milestone_basis?.message}
          options={Object.entries(p.basis)}
          {...register('milestone_basis')}
        />
        <Input
          label={p.maxGrants}
          inputMode="numeric"
          autoComplete="off"
          placeholder={p.uncapped}
          error={e.max_grants?.message}
          {...register('max_grants', { validate: optionalCount })}
        />
      </div>
      <div className="row">
        <Picker
          kind="city"
          name="city_id"
          label={`${p.city} (${p.allCities.toLowerCase()} si se deja vacío)`}
          defaultValue={promotion?.city_id ? String(promotion.city_id) : undefined}
          error={e.city_id?.message}
        />
        <Input label={p.startsAt} type="date" error={e.starts_at?.message} {...register('starts_at')} />
        <Input label={p.endsAt} type="date" error={e.ends_at?.message} {...register('ends_at')} />
      </div>
      {review ? (
        <ConfirmPanel
          title={title}
          message={
            promotion
              ? p.saveConfirm(fmt.usd(amount))
              : p.createConfirm(fmt.usd(review.amount_usd), review.audience ?? 'CLIENT', review.milestone_orders ?? 0)
          }
          onConfirm={() => void send()}
          onCancel={() => setReview(null)}
        />
      ) : (
        <div className="buttons">
          <button type="submit" className="primary">
            {t.common.save}
          </button>
        </div>
      )}
      {message && <Notice>{message}</Notice>}
      {error !== null && <ErrorView error={error} />}
    </form>
  );
};
