import { createHandle } from '../../commands/handle.js';
import { settlementEffectsReaction } from '../../commands/settlement/effects.js';
import { walletCommands } from '../../commands/wallet/handlers.js';
import type { AppContext } from '../../app/context.js';
import type { AppendOptions, EventStore, NewEvent, StreamAppend } from '../../infra/eventStore/port.js';
import { SimulatedPayoutProvider } from '../../infra/payouts/simulatedPayoutProvider.js';

/**
 * Settlement tests that drive the commands directly on a running service (no HTTP in the loop): drivers
 * with payout accounts and balances, and a context whose event store fails where a test says, the way a
 * process killed between two appends would leave the log.
 */
/** Shared by every world of a test file: two worlds on one service must never hand out the same driver id. */
let nextDriver = 10_000 + Math.floor(Math.random() * 1000) * 100;

export const settlementWorld = (ctx: AppContext) => {
  const wallet = walletCommands(ctx);
  const driver = async (idDigit: string, cents: number): Promise<number> => {
    const driverId = ++nextDriver;
    await wallet.setPayoutAccount({
      driverId,
      userId: driverId,
      account: {
        method: 'PAGO_MOVIL',
        bankCode: '0102',
        idNumber: `V1000${driverId}${idDigit}`,
        phone: '04141234567',
        accountNumber: null,
        accountType: null,
      },
      otpVerified: false,
    });
    if (cents) await adjust(driverId, cents);
    return driverId;
  };
  const adjust = async (driverId: number, cents: number) =>
    ctx.settle(
      (
        await wallet.adjust({
          driverId,
          direction: cents > 0 ? 'CREDIT' : 'DEBIT',
          amountCents: Math.abs(cents),
          reason: 'ajuste de prueba',
          adminId: 1,
        })
      ).position,
    );

  /**
   * A context whose store dies when `fail` says so for an append (before or after it is stored): that
   * append and every later one throw, as a killed process appends nothing more.
   */
  const crashing = (fail: (events: NewEvent[], stored: boolean) => boolean): AppContext => {
    const target = ctx.store;
    let killed = false;
    const store = new Proxy(target, {
      get(t, prop) {
        if (prop === 'appendToStreams') {
          return async (appends: StreamAppend[], options?: AppendOptions) => {
            const events = appends.flatMap((a) => a.events);
            if (killed || fail(events, false)) {
              killed = true;
              throw new Error('killed before the append');
            }
            const result = await t.appendToStreams(appends, options);
            if (fail(events, true)) {
              killed = true;
              throw new Error('killed after the append');
            }
            return result;
          };
        }
        const value = Reflect.get(t, prop, t) as unknown;
        return typeof value === 'function' ? value.bind(t) : value;
      },
    }) as EventStore;
    const crashed = { ...ctx, store, handle: createHandle(store) };
    // Its handler runs the receipt's effects inline on the failing store, as the service's does, so a crash
    // may fall between a receipt's append and its effects; the catch-up stays the service's own.
    crashed.handle.register(settlementEffectsReaction(crashed));
    return crashed;
  };

  const simulator = () => ctx.providers.payouts as SimulatedPayoutProvider;
  return { driver, adjust, crashing, simulator };
};
