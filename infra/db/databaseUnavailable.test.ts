import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { asUnavailable, DatabaseUnavailable, isConnectionLoss } from './databaseUnavailable.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('isConnectionLoss', () => {
  it.each([
    ['refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['session terminated by an administrator', pgError('57P01', 'terminating connection due to administrator command')],
    ['server starting up', pgError('57P03', 'the database system is starting up')],
    ['connection exception class 08', pgError('08006')],
    ['node-postgres: connection terminated', new Error('Connection terminated unexpectedly')],
    ['node-postgres: unusable client', new Error('Client has encountered a connection error and is not queryable')],
    ['node-postgres: connect timeout', new Error('timeout exceeded when trying to connect')],
    [
      'localhost on both addresses refused',
      Object.assign(
        new AggregateError([
          Object.assign(new Error('a'), { code: 'ECONNREFUSED' }),
          Object.assign(new Error('b'), { code: 'ECONNREFUSED' }),
        ]),
        {},
      ),
    ],
  ])('%s is a connection loss', (_name, err) => {
    expect(isConnectionLoss(err)).toBe(true);
  });

  it.each([
    ['unique violation', pgError('23505')],
    ['numeric out of range', pgError('22003')],
    ['bad password (a configuration error, not an outage)', pgError('28P01')],
    ['a bug', new TypeError('cannot read properties of undefined')],
    ['nothing', undefined],
  ])('%s is not', (_name, err) => {
    expect(isConnectionLoss(err)).toBe(false);
  });
});

describe('asUnavailable', () => {
  it('turns a connection loss into a 503 ServiceUnavailable domain error that keeps the cause', () => {
    const cause = new Error('Connection terminated unexpectedly');
    const err = asUnavailable(cause) as DatabaseUnavailable;
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'unavailable', code: 'ServiceUnavailable', details: { retryAfterSeconds: 1 } });
    expect(err.cause).toBe(cause);
  });

  it('leaves every other error as it was', () => {
    const err = pgError('23505');
    expect(asUnavailable(err)).toBe(err);
  });
});
