import { describe, expect, it } from 'vitest';
import { errorOf, spec } from '../../tests/support/deciderSpec.js';
import type { Actor } from '../actor.js';
import { asAssignedDriver, asOwner, asOwnerOfOffer, partyOf, visibleOrder } from './access.js';
import type { CreateOrder } from './commands.js';
import { orderDecider, type Order } from './order.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';

/** Who may see and act on an order: decided on the state the command decides on. */

const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const create: CreateOrder = createOrderCommand(1, at(0));
const bid = (offerId: number, driverId: number) => placeOfferCommand(offerId, driverId, at(1));
const order = spec(orderDecider)
  .givenCommands(create, bid(10, 21), bid(11, 22), acceptOfferCommand(10, at(2)))
  .state() as Order;

const client: Actor = { id: 7, role: 'CLIENT' };
const otherClient: Actor = { id: 8, role: 'CLIENT' };
const driver: Actor = { id: 100, role: 'DRIVER', driverId: 21 };
const losingBidder: Actor = { id: 101, role: 'DRIVER', driverId: 22 };
const stranger: Actor = { id: 102, role: 'DRIVER', driverId: 23 };
const admin: Actor = { id: 1, role: 'ADMIN' };

describe('order access', () => {
  it('names each caller’s part in the order', () => {
    const parties = [client, otherClient, driver, losingBidder, stranger, admin].map((a) =>
      partyOf(
        {
          clientId: order.clientId,
          driverId: order.driverId,
          bidderIds: Object.values(order.offers).map((o) => o.driverId),
        },
        a,
      ),
    );
    expect(parties).toEqual(['CLIENT', null, 'DRIVER', 'BIDDER', null, 'ADMIN']);
  });

  it('answers strangers exactly what an unknown id gets: 404 OrderNotFound', () => {
    for (const a of [otherClient, stranger])
      expect(errorOf(() => visibleOrder(order, a))).toMatchObject({ kind: 'not_found', code: 'OrderNotFound' });
    expect(errorOf(() => visibleOrder(null, client))).toMatchObject({ code: 'OrderNotFound' });
    expect(visibleOrder(order, losingBidder)).toBe(order);
  });

  it('lets only the assigned driver act on the trip: a losing bidder gets 403, a stranger 404', () => {
    expect(asAssignedDriver(order, driver)).toEqual({ order, driverId: 21 });
    expect(errorOf(() => asAssignedDriver(order, losingBidder))).toMatchObject({
      kind: 'forbidden',
      code: 'Forbidden',
    });
    expect(errorOf(() => asAssignedDriver(order, stranger))).toMatchObject({ code: 'OrderNotFound' });
    expect(errorOf(() => asAssignedDriver(order, client))).toMatchObject({ code: 'Forbidden' });
  });

  it('keeps client-only commands and offers to the owner: anyone else, admins included, gets 404', () => {
    expect(asOwner(order, client)).toBe(order);
    for (const a of [admin, driver, otherClient])
      expect(errorOf(() => asOwner(order, a))).toMatchObject({ code: 'OrderNotFound' });
    expect(asOwnerOfOffer(order, client, 11)).toBe(order);
    expect(errorOf(() => asOwnerOfOffer(order, client, 99))).toMatchObject({ code: 'NotFound' });
    expect(errorOf(() => asOwnerOfOffer(order, otherClient, 11))).toMatchObject({ code: 'NotFound' });
  });
});
