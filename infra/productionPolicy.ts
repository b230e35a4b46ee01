import type { Config } from './config.js';

/** The development values of the secrets. They are public (this repository holds them), so production refuses them. */
export const DEVELOPMENT_SECRETS = {
  JWT_SECRET: 'dev-only-secret-never-use-in-production',
  PAYMENT_WEBHOOK_SECRET: 'dev-payment-webhook-secret',
  PAYOUT_WEBHOOK_TOKEN: 'dev-payout-webhook-token',
} as const;

type Secret = keyof typeof DEVELOPMENT_SECRETS;
const SECRETS = Object.keys(DEVELOPMENT_SECRETS) as Secret[];

/** Shorter secrets can be guessed or brute-forced offline from one signed webhook or one admin JWT. */
const MIN_SECRET_BYTES = 32;

/**
 * Each provider whose absence runs a simulator, and what that simulator does with real customers. `variable`
 * names the generic gateway, `alternative` the provider's own protocol; either one chooses a real provider.
 */
const SIMULATORS: { variable: keyof Config; alternative?: keyof Config; simulator: string; danger: string }[] = [
  {
    variable: 'PAYMENT_PROVIDER_URL',
    simulator: 'payment simulator',
    danger: 'confirms any bank OTP but 000000, so orders go out unpaid',
  },
  {
    variable: 'PAYOUT_PROVIDER_URL',
    simulator: 'payout simulator',
    danger: 'marks receipts PAID while no money moves',
  },
  {
    variable: 'SMS_PROVIDER_URL',
    alternative: 'TWILIO_ACCOUNT_SID',
    simulator: 'SMS simulator',
    danger: 'sends no login code to anyone',
  },
  {
    variable: 'MAIL_PROVIDER_URL',
    alternative: 'SMTP_URL',
    simulator: 'mail simulator',
    danger: 'sends no admin invitation or recovery mail',
  },
  {
    variable: 'PUSH_PROVIDER_URL',
    alternative: 'GOOGLE_APPLICATION_CREDENTIALS',
    simulator: 'push simulator',
    danger: 'sends no push to any device',
  },
];

export const simulatorsOf = (config: Config) =>
  SIMULATORS.filter((s) => !config[s.variable] && !(s.alternative && config[s.alternative]));

/** The generic gateways authenticate with a bearer key: without it production would call them anonymously. */
const GATEWAY_KEYS: [keyof Config, keyof Config][] = [
  ['PAYMENT_PROVIDER_URL', 'PAYMENT_PROVIDER_KEY'],
  ['PAYOUT_PROVIDER_URL', 'PAYOUT_PROVIDER_KEY'],
  ['SMS_PROVIDER_URL', 'SMS_PROVIDER_KEY'],
  ['MAIL_PROVIDER_URL', 'MAIL_PROVIDER_KEY'],
  ['PUSH_PROVIDER_URL', 'PUSH_PROVIDER_KEY'],
];

/** SMTP_URL options that would send the relay's password, and the mails, in clear or to anyone. */
const UNSAFE_SMTP = [
  ['requireTLS', 'false'],
  ['ignoreTLS', 'true'],
  ['tls.rejectUnauthorized', 'false'],
] as const;

/**
 * Why production must not start with this configuration, one line per variable (empty: it may). A
 * production start fails closed: a forgotten secret or provider is a refusal, never a public default.
 */
export const productionRefusals = (config: Config): string[] => {
  if (config.APP_ENV !== 'production') return [];
  const refusals: string[] = [];
  for (const name of SECRETS) {
    if (config[name] === DEVELOPMENT_SECRETS[name])
      refusals.push(`${name}: required in production (at least ${MIN_SECRET_BYTES} bytes)`);
    else if (Buffer.byteLength(config[name]) < MIN_SECRET_BYTES)
      refusals.push(`${name}: must be at least ${MIN_SECRET_BYTES} bytes in production`);
  }
  SECRETS.forEach((name, i) => {
    const same = SECRETS.slice(0, i).find(
      (other) => config[other] === config[name] && config[name] !== DEVELOPMENT_SECRETS[name],
    );
    if (same) refusals.push(`${name}: must differ from ${same}`);
  });
  if (!config.ALLOW_SIMULATED_PROVIDERS) {
    for (const s of simulatorsOf(config))
      refusals.push(
        `${s.variable}: required in production${s.alternative ? `, or ${s.alternative}` : ''} (unset runs the ` +
          `${s.simulator}, which ${s.danger}); ALLOW_SIMULATED_PROVIDERS=true allows it`,
      );
  }
  for (const [url, key] of GATEWAY_KEYS)
    if (config[url] && !config[key]) refusals.push(`${key}: required in production with ${url}`);
  if (config.SMTP_URL) {
    const query = new URL(config.SMTP_URL).searchParams;
    const unsafe = UNSAFE_SMTP.filter(([name, value]) => query.get(name) === value);
    if (unsafe.length)
      refusals.push(`SMTP_URL: ${unsafe.map(([n, v]) => `${n}=${v}`).join(', ')} is refused in production`);
  }
  return refusals;
};

/** What an operator must know at start: simulators let into production, or the development doors left open. */
export const startupWarnings = (config: Config): { message: string; details: Record<string, unknown> }[] => {
  if (config.APP_ENV === 'production') {
    return simulatorsOf(config).map((s) => ({
      message: `production runs the ${s.simulator} (ALLOW_SIMULATED_PROVIDERS=true): it ${s.danger}`,
      details: { simulator: s.simulator, variable: s.variable },
    }));
  }
  return [
    {
      message: `APP_ENV=${config.APP_ENV}: development doors are open; never expose this service to the internet`,
      details: {
        doors: [
          'POST /api/v1/auth/dev-token (a token for any user)',
          'GET /api/v1/auth/dev-lookup (users by phone)',
          'GET /api/v1/dev/outbox (every SMS, mail and push sent)',
          'POST /api/v1/auth/otp/request answers the code',
        ],
      },
    },
  ];
};
