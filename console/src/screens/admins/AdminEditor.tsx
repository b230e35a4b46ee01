import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { client, unwrap, type Ok } from '../../api/client';
import { t } from '../../i18n';
import { applyFieldErrors, FormFooter, Input } from '../../ui/forms';

const a = t.admins;
export type AdminUser = Ok<'/admin/admins', 'get'>['items'][number];

interface Values {
  name: string;
  email: string;
  superAdmin: boolean;
  allCities: boolean;
  cityIds: string[];
}

const FIELDS = ['name', 'email', 'superAdmin', 'allCities', 'cityIds'] as const;

/** The served cities by name, for choosing an admin's scope. */
export const useCities = () =>
  useQuery({ queryKey: ['cities'], staleTime: Infinity, queryFn: () => unwrap(client.GET('/cities')) });

/**
 * An admin invited or edited: name, email, role and the cities they see (all, or those ticked by name).
 * A changed email is confirmed by mail, as the API does.
 */
export const AdminEditor = ({ editing, onDone }: { editing: AdminUser | null; onDone: () => void }) => {
  const queryClient = useQueryClient();
  const cities = useCities();
  const [message, setMessage] = useState('');
  const [error, setErr] = useState<unknown>(null);
  const { register, handleSubmit, setError, formState, reset, watch } = useForm<Values>({
    defaultValues: editing
      ? {
          name: editing.name,
          email: editing.email,
          superAdmin: editing.superAdmin,
          allCities: editing.allCities,
          cityIds: editing.cityIds.map(String),
        }
      : { superAdmin: false, allCities: false, cityIds: [] },
  });
  const all = watch('allCities');
  const submit = handleSubmit(async (v) => {
    setMessage('');
    setErr(null);
    const body = {
      name: v.name,
      email: v.email,
      superAdmin: v.superAdmin,
      allCities: v.allCities,
      cityIds: v.allCities ? [] : v.cityIds.map(Number),
    };
    try {
      if (editing) {
        const { email, ...rest } = body;
        await unwrap(
          client.PATCH('/admin/admins/{id}', {
            params: { path: { id: editing.id } },
            body: email === editing.email ? rest : body,
          }),
        );
        setMessage(a.saved);
      } else {
        await unwrap(client.POST('/admin/admins', { body }));
        reset();
        setMessage(a.invited);
      }
      await queryClient.invalidateQueries({ queryKey: ['admins'] });
      if (editing) onDone();
    } catch (err) {
      if (!applyFieldErrors(err, setError, FIELDS)) setErr(err);
    }
  });
  const title = editing ? a.editTitle(editing.name) : a.new;
  const cityError = formState.errors.cityIds?.message ?? formState.errors.allCities?.message;
  return (
    <form className="panel stack" onSubmit={(e) => void submit(e)} noValidate aria-label={title}>
      <h3>{title}</h3>
      <Input label={a.name} error={formState.errors.name?.message} {...register('name')} />
      <Input label={a.email} type="email" error={formState.errors.email?.message} {...register('email')} />
      <label className="check">
        <input type="checkbox" {...register('superAdmin')} /> {a.superAdmin}
      </label>
      <fieldset aria-describedby={cityError ? 'admin-cities-err' : undefined}>
        <legend>{a.cities}</legend>
        <label className="check">
          <input type="checkbox" {...register('allCities')} /> {a.allCities}
        </label>
        {!all &&
          cities.data?.cities.map((c) => (
            <label key={c.id} className="check">
              <input type="checkbox" value={String(c.id)} {...register('cityIds')} /> {c.name}
            </label>
          ))}
        {cityError && (
          <span id="admin-cities-err" className="field-error" role="alert">
            {cityError}
          </span>
        )}
      </fieldset>
      <FormFooter
        submitLabel={editing ? t.common.save : a.invite}
        onCancel={editing ? onDone : undefined}
        message={message}
        error={error}
      />
    </form>
  );
};
