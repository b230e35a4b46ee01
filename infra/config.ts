import { z } from 'zod';
import { randomJwtSecret } from './developmentJwtSecret.js';
import { DEVELOPMENT_SECRETS, productionRefusals } from './productionPolicy.js';

const intSetting = (def: number) => z.coerce.number().int().nonnegative().default(def);
const prcSetting = (def: number) => z.coerce.number().min(0).max(100).default(def);

/**
 * Every setting the service reads from its environment, with the defaults of docs/domain-rules.md. A bad value stops
 * start-up naming the variable (see loadConfig).
 */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** The operator's listener: Prometheus /metrics, /health and /ready for every role; 0 turns it off. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /**
   * Traces go to this OTLP/HTTP collector (the standard variable; the exporter also reads the other OTEL_*
   * settings); unset, no trace is recorded.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The service name traces carry. */
  OTEL_SERVICE_NAME: z.string().default('water-marketplace'),
  APP_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.string().url().optional(),
  /** The embedded PostgreSQL's data directory (DATABASE_URL unset); `memory://` makes a temporary one. */
  EMBEDDED_DB_DIR: z.string().optional(),
  /** The earlier name of EMBEDDED_DB_DIR, still read when that is unset. */
  PGLITE_DIR: z.string().optional(),
  ESDB_URL: z.string().optional(),
  NATS_URL: z.string().optional(),
  BUS_SUBJECT_PREFIX: z.string().default(''),
  ADMIN_BOOTSTRAP_EMAIL: z.string().email().optional(),
  ADMIN_BOOTSTRAP_PASSWORD: z.string().min(8).optional(),
  OFFICIAL_RATE_VES: z.coerce.number().positive().optional(),
  /** Signs admin JWTs and keys OTP hashes. The development values of the three secrets are refused in production. */
  JWT_SECRET: z.string().min(16).default(DEVELOPMENT_SECRETS.JWT_SECRET),
  PAYMENT_WEBHOOK_SECRET: z.string().default(DEVELOPMENT_SECRETS.PAYMENT_WEBHOOK_SECRET),
  PAYOUT_WEBHOOK_TOKEN: z.string().default(DEVELOPMENT_SECRETS.PAYOUT_WEBHOOK_TOKEN),
  /** Production refuses to start with a simulated payment, payout, SMS or mail provider unless this is 'true'. */
  ALLOW_SIMULATED_PROVIDERS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** The generic JSON SMS gateway ({to, message} with a bearer key); TWILIO_* is the other choice. */
  SMS_PROVIDER_URL: z.string().url().optional(),
  SMS_PROVIDER_KEY: z.string().optional(),
  /** Twilio's Messages API: all three or none. TWILIO_FROM is a sender number, or a Messaging Service SID (MG…). */
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'an account SID: AC and 32 hexadecimal digits')
    .optional(),
  TWILIO_AUTH_TOKEN: z.string().optional(),
  TWILIO_FROM: z.string().optional(),
  /** Twilio's API base URL; only tests point it elsewhere. */
  TWILIO_API_URL: z.string().url().default('https://api.twilio.com'),
  /** The generic JSON mail API ({to, subject, text} with a bearer key); SMTP_URL is the other choice. */
  MAIL_PROVIDER_URL: z.string().url().optional(),
  MAIL_PROVIDER_KEY: z.string().optional(),
  /**
   * A mail relay: smtps://user:pass@host:465 (TLS from the first byte) or smtp://user:pass@host:587 (STARTTLS,
   * required unless the URL says requireTLS=false). MAIL_FROM is then required.
   */
  SMTP_URL: z
    .string()
    .url()
    .refine((u) => /^smtps?:\/\//.test(u), 'an smtp:// or smtps:// URL')
    .optional(),
  /** The From of every mail sent over SMTP, e.g. `Agua <no-reply@example.com>`. */
  MAIL_FROM: z.string().min(3).optional(),
  /** A PEM file of the authority that signed the relay's certificate (a company's own CA); unset: the system's. */
  SMTP_CA_FILE: z.string().optional(),
  /** The generic FCM-style push gateway (a static bearer key); GOOGLE_APPLICATION_CREDENTIALS is the other choice. */
  PUSH_PROVIDER_URL: z.string().url().optional(),
  PUSH_PROVIDER_KEY: z.string().optional(),
  /** A Google service-account key file (JSON): push goes to FCM HTTP v1 for the key's project. */
  GOOGLE_APPLICATION_CREDENTIALS: z.string().optional(),
  /** FCM's API base URL; only tests point it elsewhere. */
  FCM_API_URL: z.string().url().default('https://fcm.googleapis.com'),
  PAYMENT_PROVIDER_URL: z.string().url().optional(),
  PAYMENT_PROVIDER_KEY: z.string().optional(),
  MAPS_API_KEY: z.string().optional(),
  /**
   * Base URL of the Google-style maps API (…/geocode/json, …/place/…/json hang below it); required with MAPS_API_KEY.
   */
  MAPS_PROVIDER_URL: z.string().url().optional(),
  /** Bounded wait for one maps-provider call; longer is 502 UpstreamError. */
  MAPS_TIMEOUT_MS: z.coerce.number().int().min(1).default(5000),
  /** Public reverse-geocoding lookups one client IP may make per minute. */
  GEOCODING_REVERSE_PER_IP_PER_MINUTE: z.coerce.number().int().positive().default(30),
  /** How long an identical geocoding query is answered from memory; 0 turns the cache off. */
  MAPS_CACHE_TTL_SECONDS: intSetting(300),
  PROJECTION_POLL_MS: intSetting(250),
  READ_YOUR_WRITES_TIMEOUT_MS: intSetting(5000),
  /** On SIGTERM, how long /ready says no while every request is still answered (Connection: close). */
  SHUTDOWN_GRACE_MS: intSetting(5000),
  SHUTDOWN_TIMEOUT_MS: intSetting(10000),
  PLATFORM_COMMISSION_PRC: prcSetting(10),
  CLIENT_SOLIDARY_PRC: prcSetting(1),
  DRIVER_SOLIDARY_PRC: prcSetting(1),
  PLATFORM_SOLIDARY_PRC: prcSetting(0),
  ORDER_BROADCAST_MINUTES: intSetting(30),
  OFFER_TTL_MINUTES: intSetting(10),
  PAYMENT_WINDOW_MINUTES: intSetting(30),
  NEARBY_DRIVER_RADIUS_KM: z.coerce.number().positive().default(10),
  CASH_DEBT_CAP_USD: z.coerce.number().nonnegative().default(50),
  /** Unset: appended events are checked against their schemas everywhere but in production. */
  CHECK_EVENT_SCHEMAS: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  OTP_TTL_MINUTES: intSetting(5),
  OTP_MAX_ATTEMPTS: intSetting(5),
  /** Unset: on only in production (docs/domain-rules.md, limits); tests turn it on with 'true'. */
  OTP_RATE_LIMIT: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  OTP_REQUESTS_PER_WINDOW: intSetting(3),
  OTP_VERIFICATIONS_PER_WINDOW: intSetting(5),
  /** At least 1: rate-limiter-flexible reads a window of 0 as one that never closes. */
  OTP_RATE_WINDOW_MINUTES: z.coerce.number().int().positive().default(10),
  ADMIN_JWT_TTL_MINUTES: intSetting(60),
  ADMIN_JWT_GRACE_SECONDS: intSetting(120),
  /** How long after its first sign-in an expired admin JWT may still be exchanged for a fresh one. */
  ADMIN_JWT_REFRESH_TTL_MINUTES: intSetting(20160),
  /** An app token unused this long is refused (the user signs in again). */
  APP_TOKEN_IDLE_DAYS: z.coerce.number().int().positive().default(90),
  /** Admin login and password-reset limits, in every environment; 'false' turns them off. */
  ADMIN_AUTH_RATE_LIMIT: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Failed admin logins (and, apart, password-reset requests) one client IP may make per window. */
  ADMIN_AUTH_ATTEMPTS_PER_IP_PER_WINDOW: z.coerce.number().int().positive().default(20),
  /** Failed logins (and, apart, password-reset requests) for one admin email per window. */
  ADMIN_AUTH_ATTEMPTS_PER_ACCOUNT_PER_WINDOW: z.coerce.number().int().positive().default(5),
  /** At least 1: rate-limiter-flexible reads a window of 0 as one that never closes. */
  ADMIN_AUTH_RATE_WINDOW_MINUTES: z.coerce.number().int().positive().default(10),
  ADMIN_RECOVERY_TOKEN_HOURS: intSetting(24),
  ADMIN_INVITE_TOKEN_HOURS: intSetting(72),
  NOTIFICATION_RETENTION_DAYS: intSetting(90),
  /** Websocket ping interval; a socket that missed one pong is dropped at the next. */
  WS_HEARTBEAT_MS: z.coerce.number().int().min(1000).default(30000),
  /** Open websockets one user, and one client address, may hold; the socket over either closes with 4429. */
  WS_MAX_SOCKETS_PER_USER: z.coerce.number().int().positive().default(5),
  WS_MAX_SOCKETS_PER_IP: z.coerce.number().int().positive().default(50),
  /** A claim by another admin this recent is a lost race (409 SupportError); an older one is 403. */
  SUPPORT_CLAIM_RACE_SECONDS: intSetting(5),
  BILLING_REQUIRED: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** The station request limits (nearby 20/min, comments 10/min per caller); on unless 'false'. */
  STATION_RATE_LIMIT: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  STATION_REPORT_COOLDOWN_MINUTES: intSetting(15),
  /** Reports older than this no longer count towards a station's current_status. */
  STATION_STATUS_WINDOW_MINUTES: z.coerce.number().int().positive().default(120),
  // ops (#13)
  /** /ready fails "projections" only when the oldest event some projector has not applied is older than this. */
  READY_MAX_PROJECTION_LAG_MS: intSetting(5000),
  // --- #14 apicontract ---
  /**
   * Outside production, with no rate recorded and no OFFICIAL_RATE_VES, this
   * clearly marked development rate is seeded so a first order works; 0 seeds none.
   */
  DEVELOPMENT_RATE_VES: z.coerce.number().nonnegative().default(36.5),
  /**
   * OTP code requests one client IP may make per OTP_RATE_WINDOW_MINUTES, whatever the phones (with OTP_RATE_LIMIT).
   */
  OTP_REQUESTS_PER_IP_PER_WINDOW: z.coerce.number().int().positive().default(20),
  /**
   * Express 'trust proxy': unset trusts no proxy (req.ip is the socket's
   * address); e.g. 1, loopback, or a subnet behind a load balancer.
   */
  TRUST_PROXY: z.string().optional(),
  // Settlement (#11)
  /** Base URL of the payout provider; unset: the simulator (docs/domain-rules.md, settlement receipts). */
  PAYOUT_PROVIDER_URL: z.string().url().optional(),
  PAYOUT_PROVIDER_KEY: z.string().optional(),
  /** Bounded wait for one payout call; longer is an unknown outcome, re-sent with the same internal id. */
  PAYOUT_TIMEOUT_MS: z.coerce.number().int().min(1).default(10000),
  PAYOUT_RECONCILE_MINUTES: z.coerce.number().int().min(1).default(60),
  /** How often the settlement scheduler looks whether a cutoff, payout or reconciliation is due. */
  SETTLEMENT_SCHEDULER_MS: z.coerce.number().int().min(100).default(30000),
  // Money-risk limits (#30, docs/decisions/0046-money-risk-limits.md)
  /** CREDIT adjustments a plain admin may make per calendar day (settlement timezone); super admins are not capped. */
  MANUAL_CREDIT_DAILY_LIMIT_USD: z.coerce.number().nonnegative().default(200),
  /** Driver money an order's fresh manual credit paid for waits until that credit is this old to be paid out. */
  CREDIT_PAYOUT_HOLD_HOURS: z.coerce.number().nonnegative().default(72),
  /** At least this long between two anchors taken on demand (429 Cooldown sooner); 0 lifts the limit. */
  AUDIT_ANCHOR_INTERVAL_SECONDS: z.coerce.number().int().nonnegative().default(60),
  /** A delivery counts towards a promotion milestone only with at least these liters and this client payment. */
  PROMO_MIN_LITERS: intSetting(500),
  PROMO_MIN_USD: z.coerce.number().nonnegative().default(5),
  /** Driver positions spend a distance budget that refills at this speed (domain/driver/position.ts)... */
  DRIVER_MAX_SPEED_KMH: z.coerce.number().positive().default(150),
  /** ...and holds at most this many km, so one coarse fix that jumps this far at once is still believed. */
  DRIVER_POSITION_SLACK_KM: z.coerce.number().nonnegative().default(3),
  /** Positions one driver may report per minute over every route that takes one (429 Cooldown beyond). */
  DRIVER_POSITIONS_PER_MINUTE: z.coerce.number().int().positive().default(30),
});

export type Config = z.infer<typeof ConfigSchema>;

/** The embedded PostgreSQL's directory: EMBEDDED_DB_DIR, else the older PGLITE_DIR, else ./data/postgres. */
export const embeddedDbDir = (config: Config): string =>
  config.EMBEDDED_DB_DIR ?? config.PGLITE_DIR ?? './data/postgres';

export class ConfigError extends Error {}

/** Settings that only work together, and providers chosen twice; one line per variable, in every environment. */
const incompleteSettings = (c: Config): string[] => {
  const lines: string[] = [];
  if (c.MAPS_API_KEY && !c.MAPS_PROVIDER_URL) lines.push('MAPS_PROVIDER_URL: required when MAPS_API_KEY is set');
  const twilio = ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const;
  if (twilio.some((name) => c[name]))
    for (const name of twilio) if (!c[name]) lines.push(`${name}: required with the other TWILIO_ settings`);
  if (c.SMTP_URL && !c.MAIL_FROM) lines.push('MAIL_FROM: required when SMTP_URL is set');
  const twice: [keyof Config, keyof Config][] = [
    ['SMS_PROVIDER_URL', 'TWILIO_ACCOUNT_SID'],
    ['MAIL_PROVIDER_URL', 'SMTP_URL'],
    ['PUSH_PROVIDER_URL', 'GOOGLE_APPLICATION_CREDENTIALS'],
  ];
  for (const [generic, real] of twice)
    if (c[generic] && c[real]) lines.push(`${generic}: set it or ${real}, not both (each chooses the provider)`);
  return lines;
};

export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const refusals = [...incompleteSettings(parsed.data), ...productionRefusals(parsed.data)];
  if (refusals.length) throw new ConfigError(`Invalid configuration:\n  ${refusals.join('\n  ')}`);
  // The repository's value signs nothing anywhere: outside production a process without a secret of its own
  // gets a random one (infra/developmentJwtSecret.ts keeps it with the embedded data).
  if (parsed.data.JWT_SECRET === DEVELOPMENT_SECRETS.JWT_SECRET)
    return { ...parsed.data, JWT_SECRET: randomJwtSecret() };
  return parsed.data;
};
