import { conflict, forbidden, notFound, validationError } from '../errors.js';
import {
  INCIDENT_DESCRIPTION_MAX,
  INCIDENT_TYPES,
  type IncidentEvent,
  type IncidentReportedData,
  type IncidentType,
} from './events.js';

export type IncidentState = IncidentReportedData | null;
export const initialState: IncidentState = null;

export const evolve = (_state: IncidentState, event: IncidentEvent): IncidentState => {
  switch (event.type) {
    case 'IncidentReported':
      return event.data;
  }
};

/** The caller's part in the order, as the order area names it (commands/order/handlers.ts partyOf). */
export type OrderParty = 'CLIENT' | 'DRIVER' | 'BIDDER' | 'ADMIN' | null;

export interface ReportIncident {
  type: 'ReportIncident';
  incidentId: number;
  /** Null when the order does not exist. */
  orderId: number | null;
  party: OrderParty;
  reporterId: number;
  reporterName: string | null;
  incidentType: string;
  description: string | null;
  now: Date;
}

const isIncidentType = (s: string): s is IncidentType => (INCIDENT_TYPES as readonly string[]).includes(s);

/**
 * The order's customer and its assigned driver report incidents, at any point of the order's life.
 * Strangers get the unknown order's 404; bidders and admins, who are not participants, get 403.
 * OTRO says nothing by itself, so it needs a description.
 */
export const decide = (cmd: ReportIncident, state: IncidentState): IncidentEvent[] => {
  if (cmd.orderId === null || cmd.party === null) throw notFound('OrderNotFound', 'Order not found.');
  if (cmd.party !== 'CLIENT' && cmd.party !== 'DRIVER')
    throw forbidden('Forbidden', 'Only the order’s customer and its driver report incidents.');
  if (state !== null) throw conflict('Conflict', 'This incident is already recorded.');
  const type = cmd.incidentType;
  if (!isIncidentType(type)) throw validationError({ type: [`must be one of ${INCIDENT_TYPES.join(', ')}`] });
  const description = cmd.description?.trim() || null;
  if (type === 'OTRO' && description === null)
    throw validationError({ description: ['is required when type is OTRO'] });
  if (description !== null && description.length > INCIDENT_DESCRIPTION_MAX)
    throw validationError({ description: [`at most ${INCIDENT_DESCRIPTION_MAX} characters`] });
  return [
    {
      type: 'IncidentReported',
      data: {
        incidentId: cmd.incidentId,
        orderId: cmd.orderId,
        type,
        description,
        reporterRole: cmd.party,
        reporterId: cmd.reporterId,
        reporterName: cmd.reporterName,
        reportedAt: cmd.now.toISOString(),
      },
    },
  ];
};

export const incidentDecider = { initialState, evolve, decide };
