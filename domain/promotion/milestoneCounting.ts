import { formatInTimeZone } from 'date-fns-tz';

/**
 * Which deliveries count towards a promotion milestone (docs/decisions/0046-money-risk-limits.md): only a
 * real delivery (at least `minLiters` delivered, at least `minCents` paid by the client), and at most one
 * per client–driver pair per calendar day, so that a client and a driver cannot farm a bonus with a string
 * of token orders between themselves.
 */
export interface MilestoneDelivery {
  orderId: number;
  clientId: number;
  driverId: number;
  actualLiters: number;
  clientPaysCents: number;
  deliveredAt: Date;
}

export interface MilestoneCountingRules {
  minLiters: number;
  minCents: number;
  /** The calendar day is the settlement timezone's. */
  timezone: string;
}

const isReal = (d: MilestoneDelivery, r: MilestoneCountingRules): boolean =>
  d.actualLiters >= r.minLiters && d.clientPaysCents >= r.minCents;

const pairDay = (d: MilestoneDelivery, r: MilestoneCountingRules): string =>
  `${d.clientId}/${d.driverId}/${formatInTimeZone(d.deliveredAt, r.timezone, 'yyyy-MM-dd')}`;

/** The deliveries that count, of those given (any order): the first real one of each pair and day. */
export const countedDeliveries = (deliveries: MilestoneDelivery[], r: MilestoneCountingRules): MilestoneDelivery[] => {
  const seen = new Set<string>();
  const counted: MilestoneDelivery[] = [];
  const inOrder = [...deliveries].sort(
    (a, b) => a.deliveredAt.getTime() - b.deliveredAt.getTime() || a.orderId - b.orderId,
  );
  for (const d of inOrder) {
    if (!isReal(d, r)) continue;
    const key = pairDay(d, r);
    if (seen.has(key)) continue;
    seen.add(key);
    counted.push(d);
  }
  return counted;
};
