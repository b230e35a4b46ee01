import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { signWebhook } from '../../infra/payments/webhooks.js';
import { capturedLogger, PRODUCTION_ENV, startTestService } from '../support/testService.js';

/**
 * Production fails closed (issue #20 findings 1–3): it refuses to start with a development secret or a
 * simulated provider, and says at start what an operator must know.
 */

const startProduction = async (env: Record<string, string>) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: {
      PATH: process.env.PATH,
      PGLITE_DIR: 'memory://',
      LOG_LEVEL: 'info',
      APP_ENV: 'production',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'exit');
  return { code, stderr };
};

const refusalLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => /^\s+[A-Z_]+: /.test(l))
    .map((l) => l.trim().split(':')[0]);

const DEV = { PAYMENT_WEBHOOK_SECRET: 'dev-payment-webhook-secret', PAYOUT_WEBHOOK_TOKEN: 'dev-payout-webhook-token' };

describe('a production start', { timeout: 180_000 }, () => {
  it('without secrets or providers exits 1 with one line naming each missing variable', async () => {
    const { code, stderr } = await startProduction({});
    expect(code).toBe(1);
    expect(refusalLines(stderr).sort()).toEqual(
      [
        'JWT_SECRET',
        'MAIL_PROVIDER_URL',
        'PAYMENT_PROVIDER_URL',
        'PAYMENT_WEBHOOK_SECRET',
        'PAYOUT_PROVIDER_URL',
        'PAYOUT_WEBHOOK_TOKEN',
        'PUSH_PROVIDER_URL',
        'SMS_PROVIDER_URL',
      ].sort(),
    );
  });

  it('with the development webhook secrets, a short one or shared ones, exits 1 naming them', async () => {
    const secret = 'a-secret-of-exactly-thirty-two-b';
    const { code, stderr } = await startProduction({ ...DEV, JWT_SECRET: secret, ALLOW_SIMULATED_PROVIDERS: 'true' });
    expect(code).toBe(1);
    expect(refusalLines(stderr)).toEqual(['PAYMENT_WEBHOOK_SECRET', 'PAYOUT_WEBHOOK_TOKEN']);
    const shared = await startProduction({
      JWT_SECRET: secret,
      PAYMENT_WEBHOOK_SECRET: secret,
      PAYOUT_WEBHOOK_TOKEN: 'too-short-for-a-secret',
      ALLOW_SIMULATED_PROVIDERS: 'true',
    });
    expect(shared.code).toBe(1);
    expect(shared.stderr).toMatch(/PAYOUT_WEBHOOK_TOKEN: must be at least 32 bytes/);
    expect(shared.stderr).toMatch(/PAYMENT_WEBHOOK_SECRET: must differ from JWT_SECRET/);
  });

  it('with simulators allowed warns naming each, and takes no webhook signed with a development secret', async () => {
    const log = capturedLogger('warn');
    const t = await startTestService({ env: PRODUCTION_ENV, logger: log.logger });
    try {
      const warnings = log
        .lines()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(warnings.map((w) => w.simulator).sort()).toEqual([
        'SMS simulator',
        'mail simulator',
        'payment simulator',
        'payout simulator',
        'push simulator',
      ]);
      expect(warnings.every((w) => w.level === 40 && /ALLOW_SIMULATED_PROVIDERS/.test(w.msg))).toBe(true);

      const raw = JSON.stringify({
        id: 'forged-1',
        type: 'payment.confirmed',
        data: { reference: 'ref-1', amount_cents: 100 },
      });
      const forged = await t.request('POST', '/api/v1/payments/webhook/payprov', {
        raw,
        headers: { 'x-signature': signWebhook(raw, DEV.PAYMENT_WEBHOOK_SECRET) },
      });
      expect([forged.status, forged.body.error]).toEqual([400, 'InvalidWebhook']);
      const payout = await t.request('POST', `/api/v1/settlements/webhook/payprov?token=${DEV.PAYOUT_WEBHOOK_TOKEN}`, {
        body: { internal_id: 'x', transaction_id: 'y', status: 'RJCT' },
      });
      expect(payout.status).toBe(401);
    } finally {
      await t.stop();
    }
  });

  it('outside production, start-up logs one warning listing the development doors', async () => {
    const log = capturedLogger('warn');
    const t = await startTestService({
      env: { APP_ENV: 'development', DEVELOPMENT_RATE_VES: '0' },
      logger: log.logger,
    });
    try {
      const warnings = log
        .lines()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const doors = warnings.filter((w) => Array.isArray(w.doors));
      expect(doors).toHaveLength(1);
      expect(doors[0].doors.join(' ')).toMatch(/dev-token.*dev-lookup.*dev\/outbox.*otp\/request/);
    } finally {
      await t.stop();
    }
  });
});
