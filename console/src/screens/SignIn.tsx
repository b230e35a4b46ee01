import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { client, unwrap } from '../api/client';
import { session, takeExpiredNotice } from '../api/session';
import { t } from '../i18n';
import { ErrorView, Notice } from '../ui/states';
import { Input } from '../ui/forms';
import { ApiError } from '../api/client';

export const SignIn = () => {
  const [expired] = useState(takeExpiredNotice);
  const [error, setError] = useState<unknown>(null);
  const { register, handleSubmit, formState } = useForm<{ email: string; password: string }>();
  const submit = handleSubmit(async (body) => {
    setError(null);
    try {
      const r = await unwrap(client.POST('/admin/auth/login', { body }));
      session.signIn(r.access_token, r.user);
    } catch (err) {
      setError(err);
    }
  });
  return (
    <main id="main" className="signin">
      <h1>{t.app.title}</h1>
      <form onSubmit={submit} noValidate aria-labelledby="signin-title">
        <h2 id="signin-title">{t.signIn.title}</h2>
        {expired && <Notice kind="warn">{t.errors.sessionExpired}</Notice>}
        <Input
          label={t.signIn.email}
          type="email"
          autoComplete="username"
          required
          {...register('email', { required: true })}
        />
        <Input
          label={t.signIn.password}
          type="password"
          autoComplete="current-password"
          required
          {...register('password', { required: true })}
        />
        {error !== null &&
          (error instanceof ApiError && (error.status === 401 || error.status === 422) ? (
            <p role="alert" className="notice error">
              {t.signIn.wrong}
            </p>
          ) : (
            <ErrorView error={error} />
          ))}
        <button type="submit" className="primary" disabled={formState.isSubmitting}>
          {t.signIn.submit}
        </button>
      </form>
    </main>
  );
};
