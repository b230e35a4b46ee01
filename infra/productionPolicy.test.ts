import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const SECRETS = {
  JWT_SECRET: 'production-jwt-secret-0123456789abcdef',
  PAYMENT_WEBHOOK_SECRET: 'production-payment-webhook-secret-0123456789',
  PAYOUT_WEBHOOK_TOKEN: 'production-payout-webhook-token-0123456789',
};
const PAID = {
  PAYMENT_PROVIDER_URL: 'https://payments.example/v1/',
  PAYMENT_PROVIDER_KEY: 'payments-key',
  PAYOUT_PROVIDER_URL: 'https://payouts.example/v1/',
  PAYOUT_PROVIDER_KEY: 'payouts-key',
};
const TWILIO = {
  TWILIO_ACCOUNT_SID: `AC${'0a'.repeat(16)}`,
  TWILIO_AUTH_TOKEN: 'twilio-auth-token',
  TWILIO_FROM: '+15005550006',
};
const SMTP = { SMTP_URL: 'smtps://mailer:secret@mail.example:465', MAIL_FROM: 'Agua <no-reply@agua.example>' };

/** The variables a configuration is refused for, one per line of the error. */
const refused = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.message
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(':')[0]);
  }
};

describe('provider settings', () => {
  it('production starts with the real protocols: Twilio, SMTP and an FCM key file', () => {
    expect(
      refused({
        APP_ENV: 'production',
        ...SECRETS,
        ...PAID,
        ...TWILIO,
        ...SMTP,
        GOOGLE_APPLICATION_CREDENTIALS: '/run/secrets/fcm.json',
      }),
    ).toEqual([]);
  });

  it('production names each simulator left in place, and each generic gateway without its key', () => {
    expect(refused({ APP_ENV: 'production', ...SECRETS, ...PAID, SMS_PROVIDER_URL: 'https://sms.example/' })).toEqual([
      'MAIL_PROVIDER_URL',
      'PUSH_PROVIDER_URL',
      'SMS_PROVIDER_KEY',
    ]);
  });

  it('production refuses an SMTP URL that turns TLS off or trusts any certificate', () => {
    const env = { APP_ENV: 'production', ...SECRETS, ...PAID, ...TWILIO, ALLOW_SIMULATED_PROVIDERS: 'true' };
    expect(refused({ ...env, ...SMTP, SMTP_URL: 'smtp://u:p@mail.example:587?requireTLS=false' })).toEqual([
      'SMTP_URL',
    ]);
    expect(refused({ ...env, ...SMTP, SMTP_URL: 'smtps://u:p@mail.example?tls.rejectUnauthorized=false' })).toEqual([
      'SMTP_URL',
    ]);
    expect(refused({ ...env, ...SMTP, SMTP_URL: 'smtp://u:p@mail.example:587' })).toEqual([]);
  });

  it('in every environment: Twilio needs its three settings, SMTP a sender, and a provider is chosen once', () => {
    expect(refused({ TWILIO_ACCOUNT_SID: TWILIO.TWILIO_ACCOUNT_SID })).toEqual(['TWILIO_AUTH_TOKEN', 'TWILIO_FROM']);
    expect(refused({ TWILIO_ACCOUNT_SID: 'not-a-sid', TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+1' })).toEqual([
      'TWILIO_ACCOUNT_SID',
    ]);
    expect(refused({ SMTP_URL: SMTP.SMTP_URL })).toEqual(['MAIL_FROM']);
    expect(refused({ ...SMTP, SMTP_URL: 'https://mail.example/' })).toEqual(['SMTP_URL']);
    expect(
      refused({
        ...TWILIO,
        ...SMTP,
        SMS_PROVIDER_URL: 'https://sms.example/',
        MAIL_PROVIDER_URL: 'https://mail.example/',
        PUSH_PROVIDER_URL: 'https://push.example/',
        GOOGLE_APPLICATION_CREDENTIALS: '/run/secrets/fcm.json',
      }),
    ).toEqual(['SMS_PROVIDER_URL', 'MAIL_PROVIDER_URL', 'PUSH_PROVIDER_URL']);
  });

  it('never repeats a credential in the refusal', () => {
    expect(() =>
      loadConfig({ APP_ENV: 'production', ...SECRETS, SMTP_URL: 'smtp://u:hunter2-secret@h?ignoreTLS=true' }),
    ).toThrow(/^(?![\s\S]*hunter2)/);
  });
});
