import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

/** The incident types of the contract. */
export const INCIDENT_TYPES = [
  'ACCESO_BLOQUEADO',
  'CLIENTE_NO_RESPONDE',
  'DIRECCION_INCORRECTA',
  'PROBLEMA_VEHICULO',
  'AGUA_INSUFICIENTE',
  'PROBLEMA_PAGO',
  'OTRO',
] as const;
export type IncidentType = (typeof INCIDENT_TYPES)[number];

export const INCIDENT_DESCRIPTION_MAX = 1000;

/**
 * One stream per incident (`incident-<id>`): an incident is an immutable record with no life cycle, and
 * keeping it off the order stream means reporting one never contends with the order's own commands.
 * The reporter's name is the one they had when reporting.
 */
export const IncidentReportedData = z.object({
  incidentId: z.int(),
  orderId: z.int(),
  type: z.enum(INCIDENT_TYPES),
  description: z.string().nullable(),
  reporterRole: z.enum(['CLIENT', 'DRIVER']),
  reporterId: z.int(),
  reporterName: z.string().nullable(),
  reportedAt: instant,
});
export type IncidentReportedData = z.infer<typeof IncidentReportedData>;

export const INCIDENT_EVENTS = { IncidentReported: IncidentReportedData };
export type IncidentEvent = EventsOf<typeof INCIDENT_EVENTS>;

/** One stream per incident: an immutable record, kept off the order stream so it never contends with it. */
export const incidentStream = (incidentId: number): string => `incident-${incidentId}`;
