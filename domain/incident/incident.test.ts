import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { INCIDENT_TYPES } from './events.js';
import { decide, evolve, initialState, type IncidentState, type ReportIncident } from './incident.js';

const now = new Date('2026-01-01T12:00:00Z');

const report = (over: Partial<ReportIncident> = {}): ReportIncident => ({
  type: 'ReportIncident',
  incidentId: 4,
  orderId: 3,
  party: 'DRIVER',
  reporterId: 21,
  reporterName: 'Pedro',
  incidentType: 'ACCESO_BLOQUEADO',
  description: null,
  now,
  ...over,
});

const errorOf = (f: () => unknown): DomainError => {
  try {
    f();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError');
};

const failure = (cmd: ReportIncident, state: IncidentState = initialState) => {
  const e = errorOf(() => decide(cmd, state));
  return { kind: e.kind, code: e.code, fields: Object.keys((e.details?.fieldErrors as object) ?? {}) };
};

describe('incident decider', () => {
  it('records what the order’s driver or customer reports, with their role', () => {
    expect(decide(report(), initialState)).toEqual([
      {
        type: 'IncidentReported',
        data: {
          incidentId: 4,
          orderId: 3,
          type: 'ACCESO_BLOQUEADO',
          description: null,
          reporterRole: 'DRIVER',
          reporterId: 21,
          reporterName: 'Pedro',
          reportedAt: '2026-01-01T12:00:00.000Z',
        },
      },
    ]);
    expect(
      decide(report({ party: 'CLIENT', incidentType: 'PROBLEMA_PAGO', description: '  cobro doble ' }), initialState)[0]
        .data,
    ).toMatchObject({
      reporterRole: 'CLIENT',
      description: 'cobro doble',
    });
  });

  it('is immutable: the same incident is never recorded twice', () => {
    const recorded = decide(report(), initialState).reduce(evolve, initialState);
    expect(failure(report(), recorded)).toMatchObject({ kind: 'conflict' });
  });

  it('answers strangers as if the order did not exist; bidders and admins are not participants', () => {
    expect(failure(report({ orderId: null, party: null }))).toMatchObject({ kind: 'not_found', code: 'OrderNotFound' });
    expect(failure(report({ party: null }))).toMatchObject({ kind: 'not_found', code: 'OrderNotFound' });
    for (const party of ['BIDDER', 'ADMIN'] as const)
      expect(failure(report({ party }))).toMatchObject({ kind: 'forbidden', code: 'Forbidden' });
  });

  it('needs a known type, and a description for OTRO', () => {
    expect(failure(report({ incidentType: 'INCENDIO' })).fields).toEqual(['type']);
    expect(failure(report({ incidentType: 'OTRO' })).fields).toEqual(['description']);
    expect(failure(report({ incidentType: 'OTRO', description: '   ' })).fields).toEqual(['description']);
    expect(failure(report({ description: 'x'.repeat(1001) })).fields).toEqual(['description']);
    expect(decide(report({ incidentType: 'OTRO', description: 'x'.repeat(1000) }), initialState)).toHaveLength(1);
    expect(decide(report({ description: '' }), initialState)[0].data.description).toBeNull();
  });

  it('records every incident type of the spec', () => {
    for (const incidentType of INCIDENT_TYPES) {
      const [e] = decide(
        report({ incidentType, description: incidentType === 'OTRO' ? 'Otra cosa' : null }),
        initialState,
      );
      expect(e.data.type, incidentType).toBe(incidentType);
    }
  });
});
