import { describe, expect, it } from 'vitest';
import { countedDeliveries, type MilestoneDelivery } from './milestoneCounting.js';

const rules = { minLiters: 500, minCents: 500, timezone: 'America/Caracas' };
let nextOrder = 1;
const delivery = (over: Partial<MilestoneDelivery> = {}): MilestoneDelivery => ({
  orderId: nextOrder++,
  clientId: 1,
  driverId: 7,
  actualLiters: 2000,
  clientPaysCents: 2500,
  deliveredAt: new Date('2026-11-26T15:00:00Z'),
  ...over,
});
const ids = (ds: MilestoneDelivery[]) => ds.map((d) => d.orderId);

describe('deliveries that count towards a promotion milestone', () => {
  it('counts only deliveries of at least 500 L that the client paid at least 5 USD for', () => {
    const real = delivery();
    const tiny = delivery({ actualLiters: 1, clientId: 2 });
    const cheap = delivery({ clientPaysCents: 1, clientId: 3 });
    const edge = delivery({ actualLiters: 500, clientPaysCents: 500, clientId: 4 });
    expect(ids(countedDeliveries([real, tiny, cheap, edge], rules))).toEqual([real.orderId, edge.orderId]);
  });

  it('counts one delivery per client–driver pair per calendar day in the settlement timezone', () => {
    const first = delivery({ deliveredAt: new Date('2026-11-26T12:00:00Z') });
    const again = delivery({ deliveredAt: new Date('2026-11-26T18:00:00Z') });
    // 23:30 in Caracas is still the 26th; 00:30 the next day is the 27th.
    const lateSameDay = delivery({ deliveredAt: new Date('2026-11-27T03:30:00Z') });
    const nextDay = delivery({ deliveredAt: new Date('2026-11-27T04:30:00Z') });
    const otherDriver = delivery({ driverId: 8, deliveredAt: new Date('2026-11-26T18:00:00Z') });
    expect(ids(countedDeliveries([nextDay, again, first, lateSameDay, otherDriver], rules))).toEqual([
      first.orderId,
      otherDriver.orderId,
      nextDay.orderId,
    ]);
  });

  it('lets a real delivery count on a day whose earlier delivery of the pair did not', () => {
    const token = delivery({ actualLiters: 1, deliveredAt: new Date('2026-11-26T12:00:00Z') });
    const real = delivery({ deliveredAt: new Date('2026-11-26T13:00:00Z') });
    expect(ids(countedDeliveries([token, real], rules))).toEqual([real.orderId]);
  });
});
