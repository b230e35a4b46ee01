import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditStream } from '../../../domain/credit/events.js';
import { ManualClock } from '../../../infra/clock.js';
import { signInAdmin, signInClient, type SignedInAdmin, type SignedInUser } from '../../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNoNewEvents,
  expectNothingAppended,
  expectResponse,
  race,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../../tests/support/apiSpecification.js';

/**
 * Money-risk limits (docs/decisions/0046-money-risk-limits.md): a plain admin's manual CREDIT adjustments
 * are capped at MANUAL_CREDIT_DAILY_LIMIT_USD (200) per calendar day in the settlement timezone
 * (America/Caracas); super admins are not.
 */
describe('the daily cap on a plain admin’s manual credit', () => {
  const clock = new ManualClock('2026-03-10T15:00:00Z');
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApiUnderTest({ clock });
  });
  afterAll(async () => {
    await api?.stop();
  });

  const plainAdmin = () => signInAdmin(api, { superAdmin: false, allCities: true });
  const adjust = (admin: SignedInAdmin, client: SignedInUser, amount: number, type = 'credit') =>
    api.given().when((r) =>
      r.post(`/admin/customers/${client.user.id}/credit/adjust`, admin.token, {
        type,
        amount,
        reason: 'Compensación por un pedido tardío',
      }),
    );

  it('books up to the allowance, then refuses on amount naming what is left, until the next day', async () => {
    const admin = await plainAdmin();
    const client = await signInClient(api);
    await adjust(admin, client, 150).then(
      expectResponse(200),
      expectNewEvents(creditStream(client.user.id), [
        { type: 'CreditAdjusted', data: { adminId: admin.admin.id, direction: 'CREDIT', amountCents: 15_000 } },
      ]),
    );
    await adjust(admin, client, 50.01).then(
      expectError(422, 'ValidationError', { fieldErrors: { amount: [expect.stringContaining('50.00 USD left')] } }),
      expectNoNewEvents(creditStream(client.user.id)),
    );
    // Debits take nothing away from a customer's money: they are not capped.
    await adjust(admin, client, 500, 'debit').then(
      expectResponse(200),
      expectNewEvents(creditStream(client.user.id), [
        { type: 'CreditAdjusted', data: { adminId: admin.admin.id, direction: 'DEBIT', amountCents: 50_000 } },
      ]),
    );
    await adjust(admin, client, 50).then(
      expectResponse(200),
      expectNewEvents(creditStream(client.user.id), [
        { type: 'CreditAdjusted', data: { direction: 'CREDIT', amountCents: 5_000 } },
      ]),
    );
    await adjust(admin, client, 0.01).then(
      expectError(422, 'ValidationError', { fieldErrors: { amount: [expect.stringContaining('0.00 USD left')] } }),
      expectNothingAppended,
    );
    // 23:59 in Caracas is still the same day; midnight there starts a new allowance.
    clock.set('2026-03-11T03:59:00Z');
    await adjust(admin, client, 1).then(expectError(422, 'ValidationError'), expectNothingAppended);
    clock.set('2026-03-11T04:00:00Z');
    await adjust(admin, client, 200).then(
      expectResponse(200),
      expectNewEvents(creditStream(client.user.id), [
        { type: 'CreditAdjusted', data: { direction: 'CREDIT', amountCents: 20_000 } },
      ]),
    );
  });

  it('does not cap a super admin', async () => {
    const root = await signInAdmin(api);
    const client = await signInClient(api);
    await adjust(root, client, 5_000).then(
      expectResponse(200),
      expectNewEvents(creditStream(client.user.id), [{ type: 'CreditAdjusted', data: { amountCents: 500_000 } }]),
    );
  });

  it('lets concurrent adjustments by one admin together reach the cap and no further', async () => {
    const admin = await plainAdmin();
    const clients = await Promise.all(Array.from({ length: 6 }, () => signInClient(api)));
    const adjustments = race((api) =>
      clients.map((client) =>
        api.post(`/admin/customers/${client.user.id}/credit/adjust`, admin.token, {
          type: 'credit',
          amount: 50,
          reason: 'Compensación por un pedido tardío',
        }),
      ),
    );
    await api
      .given()
      .when(adjustments.send)
      .then(async ({ allNewEvents }) => {
        // Four of the six reach the cap together: four 50 USD adjustments, each on its client's stream.
        const adjusted = (await allNewEvents()).filter((e) => e.type === 'CreditAdjusted');
        expect(adjusted).toHaveLength(4);
        expect(adjusted.map((e) => e.data)).toEqual(
          Array.from({ length: 4 }, () => expect.objectContaining({ adminId: admin.admin.id, amountCents: 5_000 })),
        );
      });
    expect(adjustments.responses.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 422, 422]);
    const booked = await Promise.all(
      clients.map(async (c) =>
        (await api.service.ctx.store.readStream(creditStream(c.user.id))).filter((e) => e.type === 'CreditAdjusted'),
      ),
    );
    expect(booked.flat().reduce((sum, e) => sum + (e.data as { amountCents: number }).amountCents, 0)).toBe(20_000);
  });
});
