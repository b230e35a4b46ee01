import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ApiError } from '../../api/client';
import type { components } from '../../api/schema';
import { t } from '../../i18n';
import { applyFieldErrors, Input, Select } from '../../ui/forms';
import { ErrorView, Notice } from '../../ui/states';

const s = t.stations;
type Station = components['schemas']['AdminStation'];

export interface StationValues {
  name: string;
  address: string;
  latitude: string;
  longitude: string;
  tipo: 'AGUA' | 'GASOLINA';
  city: string;
  description: string;
  landmark: string;
  opening_time: string;
  closing_time: string;
  is_verified: 'true' | 'false';
}

const FIELDS = [
  'name',
  'address',
  'latitude',
  'longitude',
  'tipo',
  'city',
  'description',
  'landmark',
  'opening_time',
  'closing_time',
  'is_verified',
] as const;

const valuesOf = (st?: Station): StationValues => ({
  name: st?.name ?? '',
  address: st?.address ?? '',
  latitude: st ? String(st.latitude) : '',
  longitude: st ? String(st.longitude) : '',
  tipo: st?.tipo ?? 'AGUA',
  city: st?.city ?? 'Caracas',
  description: st?.description ?? '',
  landmark: st?.landmark ?? '',
  opening_time: st?.opening_time ?? '',
  closing_time: st?.closing_time ?? '',
  is_verified: st?.is_verified ? 'true' : 'false',
});

/** The API's body: numbers as numbers, empty optional texts as null (they clear the field on an edit). */
export const stationBody = (v: StationValues) => ({
  name: v.name.trim(),
  address: v.address.trim(),
  latitude: v.latitude.trim() === '' ? Number.NaN : Number(v.latitude.replace(',', '.')),
  longitude: v.longitude.trim() === '' ? Number.NaN : Number(v.longitude.replace(',', '.')),
  tipo: v.tipo,
  city: v.city.trim() || undefined,
  description: v.description.trim() || null,
  landmark: v.landmark.trim() || null,
  opening_time: v.opening_time || null,
  closing_time: v.closing_time || null,
  is_verified: v.is_verified === 'true',
});

/**
 * A station's fields, for creating or editing: the API's 422s land on their fields, the business refusals
 * too (coordinates outside Venezuela on both coordinates, a duplicate on the name).
 */
export const StationForm = ({
  station,
  title,
  submitLabel,
  onSave,
}: {
  station?: Station;
  title: string;
  submitLabel: string;
  onSave: (body: ReturnType<typeof stationBody>) => Promise<string>;
}) => {
  const [error, setErr] = useState<unknown>(null);
  const [message, setMessage] = useState('');
  const { register, handleSubmit, setError, formState } = useForm<StationValues>({ values: valuesOf(station) });
  const e = formState.errors;
  const submit = handleSubmit(async (v) => {
    setErr(null);
    setMessage('');
    try {
      setMessage(await onSave(stationBody(v)));
    } catch (err) {
      if (err instanceof ApiError && err.body?.error === 'CoordsOutOfRange') {
        setError('latitude', { type: 'server', message: s.coordsOutOfRange });
        setError('longitude', { type: 'server', message: s.coordsOutOfRange });
      } else if (err instanceof ApiError && err.body?.error === 'DuplicateStation') {
        setError('name', { type: 'server', message: s.duplicate });
      } else if (!applyFieldErrors(err, setError, FIELDS)) setErr(err);
    }
  });
  return (
    <form className="panel stack" onSubmit={submit} noValidate aria-label={title}>
      <h2>{title}</h2>
      <div className="row">
        <Input label={s.name} maxLength={160} error={e.name?.message} {...register('name')} />
        <Select label={s.tipoLabel} error={e.tipo?.message} options={Object.entries(s.tipo)} {...register('tipo')} />
        <Input label={s.city} maxLength={120} error={e.city?.message} {...register('city')} />
      </div>
      <Input label={s.address} maxLength={280} error={e.address?.message} {...register('address')} />
      <div className="row">
        <Input label={s.latitude} inputMode="decimal" error={e.latitude?.message} {...register('latitude')} />
        <Input label={s.longitude} inputMode="decimal" error={e.longitude?.message} {...register('longitude')} />
        <Input label={s.opening} type="time" error={e.opening_time?.message} {...register('opening_time')} />
        <Input label={s.closing} type="time" error={e.closing_time?.message} {...register('closing_time')} />
        <Select
          label={s.verified}
          options={[
            ['false', t.common.no],
            ['true', t.common.yes],
          ]}
          {...register('is_verified')}
        />
      </div>
      <Input label={s.landmark} maxLength={280} error={e.landmark?.message} {...register('landmark')} />
      <Input label={s.description} maxLength={1000} error={e.description?.message} {...register('description')} />
      {message && <Notice>{message}</Notice>}
      {error !== null && <ErrorView error={error} />}
      <div className="buttons">
        <button type="submit" className="primary" disabled={formState.isSubmitting}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
};
