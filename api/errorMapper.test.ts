import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conflict, DomainError, tooMany, validationError } from '../domain/errors.js';
import { errorMapper } from './errorMapper.js';

const answer = (err: unknown) => {
  const out: { status?: number; body?: any; headers?: Record<string, string> } = {};
  const res = {
    headersSent: false,
    setHeader(name: string, value: string) {
      out.headers = { ...out.headers, [name]: value };
      return this;
    },
    status(code: number) {
      out.status = code;
      return this;
    },
    json(body: unknown) {
      out.body = body;
      return this;
    },
  } as unknown as Response;
  const req = { log: { warn: () => undefined, error: () => undefined } } as unknown as Request;
  errorMapper(err, req, res, () => undefined);
  return out;
};

describe('the error mapper', () => {
  it('answers every 429 and 503 with Retry-After and retryAfterSeconds, from the error or a default', () => {
    expect(answer(tooMany('Cooldown', 'slow down', { retryAfterSeconds: 42 }))).toEqual({
      status: 429,
      headers: { 'Retry-After': '42' },
      body: { error: 'Cooldown', message: 'slow down', retryAfterSeconds: 42 },
    });
    expect(answer(tooMany('Cooldown', 'slow down', { retryAfterMinutes: 2 }))).toMatchObject({
      headers: { 'Retry-After': '120' },
      body: { retryAfterMinutes: 2, retryAfterSeconds: 120 },
    });
    expect(answer(tooMany('SmsSendError', 'provider down'))).toMatchObject({
      headers: { 'Retry-After': '60' },
      body: { retryAfterSeconds: 60 },
    });
    expect(answer(new DomainError('unavailable', 'GeocodingNotConfigured', 'no key'))).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '30' },
      body: { retryAfterSeconds: 30 },
    });
    expect(answer(conflict('Conflict', 'no')).headers).toBeUndefined();
  });

  it('keeps fieldErrors under details for ValidationError and spreads other errors’ extra fields', () => {
    expect(answer(validationError({ litersRequested: ['too many'] }))).toEqual({
      status: 422,
      body: {
        error: 'ValidationError',
        message: expect.any(String),
        details: { fieldErrors: { litersRequested: ['too many'] } },
      },
    });
    expect(
      answer(conflict('InsufficientLiters', 'not enough', { remaining_liters: 10, requested_liters: 20 })),
    ).toEqual({
      status: 409,
      body: { error: 'InsufficientLiters', message: 'not enough', remaining_liters: 10, requested_liters: 20 },
    });
  });

  it('names each bad field of a zod error', () => {
    const r = z.object({ a: z.number(), b: z.object({ c: z.string() }) }).safeParse({ a: 'x', b: { c: 1 } });
    expect(answer(r.error).body.details.fieldErrors).toEqual({ a: [expect.any(String)], 'b.c': [expect.any(String)] });
  });

  it('answers a value the database refuses (SQLSTATE class 22) with 422 and no SQL text', () => {
    const pgError = Object.assign(
      new Error('value "99999999999" is out of range for type integer in INSERT INTO orders …'),
      { code: '22003', severity: 'ERROR' },
    );
    const { status, body } = answer(pgError);
    expect(status).toBe(422);
    expect(body.error).toBe('ValidationError');
    expect(JSON.stringify(body)).not.toMatch(/INSERT|integer|orders/);
  });

  it('keeps the 4xx of an error Express raised, and hides everything else behind a bare 500', () => {
    expect(answer(Object.assign(new URIError('Failed to decode param'), { status: 400 }))).toMatchObject({
      status: 400,
      body: { error: 'BadRequest' },
    });
    const bug = answer(new Error('relation "orders" does not exist'));
    expect(bug).toEqual({ status: 500, body: { error: 'InternalError', message: expect.any(String) } });
    expect(JSON.stringify(bug.body)).not.toMatch(/relation|orders/);
  });
});
