import type { Router } from 'express';
import { z } from 'zod';
import { changeSettlementConfig, loadSettlementConfig } from '../../../commands/settlement/settlementConfig.js';
import { centsToUsd, usdToCents } from '../../../domain/money.js';
import type { SettlementConfig } from '../../../domain/settlement/config.js';
import type { ApiContext } from '../../apiContext.js';
import { requireRole } from '../../auth.js';
import { metadataOf } from '../../../commands/origin.js';
import { rule } from '../../crossFieldRules.js';
import { defineRoute } from '../../route.js';

const HOUR_MINUTE = /^([01]\d|2[0-3]):[0-5]\d$/;
const OFFSET = /^[+-](0\d|1[0-4]):[0-5]\d$/;

/**
 * The IANA zones this runtime knows (its canonical names, and UTC), as the document's enum: a zone the
 * document lists is one the service takes, and none other (docs/decisions/0090).
 */
const ZONES: readonly string[] = [...Intl.supportedValuesOf('timeZone'), 'UTC'].sort();
const ZONE_SET = new Set(ZONES);

const isTimezone = (tz: string): boolean => OFFSET.test(tz) || ZONE_SET.has(tz);

/** A UTC offset (its pattern) or an IANA zone (the enum). */
const Timezone = z
  .string()
  .max(64)
  .refine(isTimezone, 'must be a UTC offset (+-HH:MM) or an IANA time zone')
  .openapi({
    description: 'A UTC offset ±HH:MM (e.g. -04:00) or an IANA time zone (e.g. America/Caracas).',
    anyOf: [
      { type: 'string', pattern: OFFSET.source },
      { type: 'string', enum: [...ZONES] },
    ],
  });

const ConfigPatch = z
  .object({
    cutoff_enabled: z.boolean(),
    cutoff_time: z.string().regex(HOUR_MINUTE, 'must be a 24-hour time H:i (e.g. 18:00)'),
    payout_enabled: z.boolean(),
    payout_time: z
      .string()
      .regex(HOUR_MINUTE, 'must be a 24-hour time H:i (e.g. 19:00)')
      .openapi({ description: 'After cutoff_time (the one sent, else the stored one).' }),
    min_balance: z.number().min(0.5, 'must be at least 0.5').max(1_000_000),
    active_days: z
      .array(z.boolean())
      .length(7, 'must hold exactly 7 booleans (Sunday first)')
      .openapi({ minItems: 7, maxItems: 7 }),
    iva_prc: z.number().min(0).max(100),
    timezone: Timezone,
  })
  .partial()
  .strict();

const ConfigView = z.object({
  cutoff_enabled: z.boolean(),
  cutoff_time: z.string(),
  payout_enabled: z.boolean(),
  payout_time: z.string(),
  min_balance_usd: z.number(),
  min_balance_cents: z.number().int(),
  active_days: z.array(z.boolean()),
  iva_prc: z.number(),
  timezone: z.string(),
});

const AuditEntry = z.object({
  key: z.literal('settlement_config'),
  old_values: z.record(z.string(), z.unknown()),
  new_values: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});

export const toConfigView = (c: SettlementConfig): z.infer<typeof ConfigView> => ({
  cutoff_enabled: c.cutoffEnabled,
  cutoff_time: c.cutoffTime,
  payout_enabled: c.payoutEnabled,
  payout_time: c.payoutTime,
  min_balance_usd: centsToUsd(c.minBalanceCents),
  min_balance_cents: c.minBalanceCents,
  active_days: c.activeDays,
  iva_prc: c.ivaPrc,
  timezone: c.timezone,
});

/** Changed fields under the config's own names (min_balance as min_balance_usd). */
const auditValues = (v: Partial<SettlementConfig>): Record<string, unknown> => {
  const view = toConfigView({ ...(v as SettlementConfig) });
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(view))
    if (value !== undefined && !(typeof value === 'number' && Number.isNaN(value)) && key !== 'min_balance_cents')
      out[key] = value;
  return out;
};

export const settlementConfigRoutes = (ctx: ApiContext, router: Router) => {
  const superAdmin = requireRole(ctx.auth, 'SUPER_ADMIN');
  const tags = ['admin-settlements'];

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/settlements/config',
      summary: 'Settlement configuration',
      tags,
      guards: superAdmin,
      responses: { 200: { description: 'The configuration', schema: z.object({ config: ConfigView }) } },
      errors: { 403: ['Forbidden'] },
    },
    async () => ({ config: toConfigView(await loadSettlementConfig(ctx)) }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/admin/settlements/config',
      summary: 'Change the settlement configuration (only the fields sent; the audit entry holds the changed ones)',
      tags,
      guards: superAdmin,
      body: ConfigPatch,
      rules: rule('payout_time is after cutoff_time (the one sent, else the stored one).', {
        payout_time: ['payout_time must be after cutoff_time.'],
      }),
      responses: {
        200: {
          description: 'The configuration and the audit entry (null for a no-op)',
          schema: z.object({ config: ConfigView, audit_entry: AuditEntry.nullable() }),
        },
      },
      errors: { 403: ['Forbidden'], 409: ['Conflict'] },
    },
    async ({ body, actor, req }) => {
      const patch: Partial<SettlementConfig> = {
        cutoffEnabled: body.cutoff_enabled,
        cutoffTime: body.cutoff_time,
        payoutEnabled: body.payout_enabled,
        payoutTime: body.payout_time,
        minBalanceCents: body.min_balance === undefined ? undefined : usdToCents(body.min_balance),
        activeDays: body.active_days,
        ivaPrc: body.iva_prc,
        timezone: body.timezone,
      };
      const { position, change, config } = await changeSettlementConfig(
        ctx,
        patch,
        actor.id,
        metadataOf(actor, req.id),
      );
      await ctx.settle(position);
      return {
        config: toConfigView(config),
        audit_entry: change
          ? {
              key: 'settlement_config' as const,
              old_values: auditValues(change.data.oldValues),
              new_values: auditValues(change.data.newValues),
              created_at: change.data.at,
            }
          : null,
      };
    },
  );
};
