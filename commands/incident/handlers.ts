import { incidentStream } from '../../domain/incident/events.js';
import { incidentDecider } from '../../domain/incident/incident.js';
import type { Actor } from '../../domain/actor.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { partyOfOrder } from '../../domain/order/access.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { loadState } from '../handle.js';
import { nextId } from '../origin.js';

type Deps = Pick<CommandDeps, 'clock' | 'db' | 'handle' | 'store'>;

export interface ReportIncidentInput {
  orderId: number;
  type: string;
  description: string | null;
}

export const reportIncident = async (ctx: Deps, actor: Actor, input: ReportIncidentInput, metadata?: EventMetadata) => {
  const { state: order } = await loadState(ctx.store, orderStream(input.orderId), orderDecider);
  const party = order ? partyOfOrder(order, actor) : null;
  const incidentId = await nextId(ctx.db, 'incident_id_seq');
  const result = await ctx.handle(
    incidentDecider,
    incidentStream(incidentId),
    {
      type: 'ReportIncident',
      incidentId,
      orderId: order?.id ?? null,
      party,
      reporterId: actor.id,
      reporterName: actor.name ?? null,
      incidentType: input.type,
      description: input.description,
      now: ctx.clock.now(),
    },
    { metadata },
  );
  return { position: result.position, incident: result.state! };
};
