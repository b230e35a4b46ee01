import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

/** Paths register here as their routes are defined (api/route.ts); the document is built on request. */
export const createOpenApiRegistry = () => {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  return registry;
};

export const ErrorBody = z
  .object({
    error: z.string(),
    message: z.string().optional(),
    details: z.object({ fieldErrors: z.record(z.string(), z.array(z.string())).optional() }).passthrough().optional(),
    retryAfterSeconds: z.number().int().optional(),
  })
  .passthrough()
  .openapi('Error');

export const buildOpenApiDocument = (registry: OpenAPIRegistry) =>
  new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Water delivery marketplace API', version: '1.0.0' },
    servers: [{ url: '/api/v1' }],
  });
