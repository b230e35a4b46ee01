import type { Request } from 'express';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { Actor } from '../auth.js';

/** Event metadata of a request: its id as the correlation id, and who acted. */
export const requestMetadata = (req: Request, actor?: Actor): EventMetadata => ({
  correlationId: String(req.id ?? ''),
  ...(actor ? { actor: { id: actor.id, role: actor.role } } : {}),
});
