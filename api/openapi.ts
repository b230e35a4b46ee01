import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

/** Paths register here as their routes are defined (api/route.ts); the document is built on request. */
export const createOpenApiRegistry = () => {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'appToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The opaque token of a customer or driver, from the phone sign-in (POST /auth/otp/verify)',
  });
  registry.registerComponent('securitySchemes', 'adminJwt', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A back-office JWT from POST /admin/auth/login; an answer may carry its renewal in the Authorization header',
  });
  registry.registerComponent('securitySchemes', 'webhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Signature',
    description: 'sha256=<hex HMAC-SHA256 of the raw body, keyed with the provider webhook secret>',
  });
  registry.registerComponent('securitySchemes', 'payoutToken', {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description: 'The payout provider webhook token (PAYOUT_WEBHOOK_TOKEN)',
  });
  return registry;
};

export const ErrorBody = z
  .object({
    error: z.string(),
    message: z.string().optional(),
    details: z
      .object({ fieldErrors: z.record(z.string(), z.array(z.string())).optional() })
      .passthrough()
      .optional(),
    retryAfterSeconds: z.number().int().optional(),
  })
  .passthrough()
  .openapi('Error');

/**
 * Every tag an operation may carry, with its description. A route whose tag is missing here is listed
 * without one, and the lint in .ci/run names it.
 */
export const TAGS: Record<string, string> = {
  identity: 'Phone sign-in with one-time codes, tokens and the signed-in user',
  cities: 'Cities the service operates in',
  orders: 'Water orders: creation, history, the trip from start to delivery, receipts',
  offers: 'Driver bids on an order (take at price or counter-offer) and the customer’s answer',
  payments: 'Paying an order: methods, provider payments, reported transfers and provider webhooks',
  'payment-methods': 'Payment methods the customer may choose',
  'payment-forms': 'Manual payment forms (bank transfer details) the customer fills in',
  'billing-profiles': 'Customer billing (invoice) profiles',
  credit: 'Promotional credit of a customer',
  drivers: 'Driver profile, documents, tank, position and availability',
  surplus: 'End-of-route water surplus listings that a customer reserves whole',
  stations: 'Crowd-sourced water station directory: traffic-light reports and comment walls',
  chat: 'Chat rooms per order (client–driver and support threads); live messages over the websocket',
  incidents: 'Incidents reported on an order',
  ratings: 'Customer ratings of drivers',
  notifications: 'The notification inbox; live notifications over the websocket',
  'device-tokens': 'Push notification device tokens',
  geocoding: 'Geocoding proxy: autocomplete, place details, reverse geocoding',
  'exchange-rates': 'The official VES exchange rate series',
  wallet: 'Driver wallet: balance, ledger and payout account',
  settlements: 'Driver settlements and settlement receipts',
  'admin-auth': 'Back-office sign-in, token refresh, password recovery and account confirmation',
  'admin-admins': 'Back-office administrator accounts (super admin)',
  'admin-customers': 'Back-office customer directory, bank accounts and credit adjustments',
  'admin-drivers': 'Back-office driver directory and KYC review',
  'admin-payments': 'Back-office review of reported payments',
  'admin-promotions': 'Promotion campaigns and their credit grants (super admin)',
  'admin-stations': 'Back-office station administration and CSV bulk import',
  'admin-support': 'Back-office support inbox: order support rooms, claims and replies',
  'admin-wallet': 'Back-office wallet adjustments and ledgers',
  'admin-settlements': 'Back-office settlement runs and payouts',
  'admin-reports': 'Back-office reports and their CSV / XLSX exports',
  'admin-history': 'Back-office event history of an aggregate',
  'admin-audit': 'Hash chains of the money streams: verifiable exports, chain status and anchors (super admin)',
  health: 'Liveness and readiness',
  dev: 'Development helpers (absent in production)',
};

const DESCRIPTION = [
  'Client, driver and back-office API of the water delivery marketplace. Bodies are JSON unless an',
  'operation says otherwise; every error answers the `Error` envelope (`error`, `message`,',
  '`details.fieldErrors` on a 422 ValidationError, `retryAfterSeconds` with the `Retry-After` header on',
  '429 and 503). Unknown query parameters are ignored, so that an app of an older or newer version',
  'keeps working; a parameter an operation lists is checked like the rest. Real-time messages travel over',
  'the websocket `/ws`, described by the AsyncAPI 3 document at `/api/v1/asyncapi.json`.',
].join(' ');

type Json = Record<string, unknown>;

/**
 * zod refuses an integer beyond ±(2^53 − 1) (`.int()` is a safe integer) but the generator does not say
 * so: every integer schema gets those bounds where it has none of its own.
 */
const boundIntegers = (node: unknown): void => {
  if (Array.isArray(node)) return node.forEach(boundIntegers);
  if (!node || typeof node !== 'object') return;
  const o = node as Json;
  const type = o.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
    if (o.maximum === undefined && o.exclusiveMaximum === undefined) o.maximum = Number.MAX_SAFE_INTEGER;
    if (o.minimum === undefined && o.exclusiveMinimum === undefined) o.minimum = -Number.MAX_SAFE_INTEGER;
  }
  Object.values(o).forEach(boundIntegers);
};

/**
 * A query string carries no null: where a query parameter's schema admits null (a preprocess that reads
 * null as absent makes the generator say so), the document drops it, so that no client sends `?x=null`.
 */
const noNullInQueries = (doc: { paths?: Record<string, Record<string, { parameters?: Json[] }>> }) => {
  for (const item of Object.values(doc.paths ?? {}))
    for (const op of Object.values(item))
      for (const p of op.parameters ?? []) {
        const schema = p.schema as Json | undefined;
        if (p.in !== 'query' || !schema) continue;
        if (Array.isArray(schema.type)) {
          const types = schema.type.filter((t) => t !== 'null');
          schema.type = types.length === 1 ? types[0] : types;
        }
        if (Array.isArray(schema.enum)) schema.enum = schema.enum.filter((v) => v !== null);
      }
};

export const buildOpenApiDocument = (registry: OpenAPIRegistry) => {
  const used = new Set(registry.definitions.flatMap((d) => (d.type === 'route' ? (d.route.tags ?? []) : [])));
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Water delivery marketplace API',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/api/v1' }],
    tags: [...used].sort().map((name) => (TAGS[name] ? { name, description: TAGS[name] } : { name })),
  });
  boundIntegers(doc);
  noNullInQueries(doc as never);
  return doc;
};

/** The `meta` of page-numbered lists (admin lists): total rows and the page window. */
export const PageMeta = z
  .object({
    total: z.number().int(),
    per_page: z.number().int(),
    current_page: z.number().int(),
    last_page: z.number().int(),
  })
  .openapi('PageMeta');

/** `{items, meta}`: one page of a page-numbered list. */
export const pageOf = (item: z.ZodType) => z.object({ items: z.array(item), meta: PageMeta });

/**
 * A named (registered) schema or null. zod-to-openapi renders `Named.nullable()` as
 * allOf[$ref, {type: [object, null]}], which rejects null; a union renders as anyOf[$ref, null].
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);
