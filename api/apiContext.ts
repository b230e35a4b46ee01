import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { CommandDeps } from '../commands/deps.js';
import type { Authenticator } from '../infra/identity/port.js';
import type { DevOutbox } from '../infra/outbox/port.js';
import type { ProjectionRunner } from '../projections/runner.js';

/**
 * What a router is built from: everything a command may be given, plus what only the HTTP edge uses. The
 * composition root's context (app/context.ts) is one of these.
 */
export interface ApiContext extends CommandDeps {
  /** Every route registers its request and response schemas here; GET /api/v1/openapi.json serves it. */
  openapi: OpenAPIRegistry;
  auth: Authenticator;
  /** Projection status for the back office and health. */
  runner: ProjectionRunner;
  /** Where simulated providers record what they sent (GET /dev/outbox). */
  outbox: DevOutbox;
  /**
   * Once a stop has begun, /ready says no at once, so that a load balancer takes the instance out while it
   * still answers (infra/drainingServer.ts).
   */
  readiness: { stopping: boolean };
}
