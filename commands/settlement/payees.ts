import { PAYEES_STREAM } from '../../domain/settlement/events.js';
import { enrolledOf, payeesDecider } from '../../domain/settlement/payees.js';
import type { PayoutAccountSetData } from '../../domain/wallet/events.js';
import type { EventStore } from '../../infra/eventStore/port.js';
import type { Scheduler } from '../../infra/scheduler.js';
import { loadState } from '../handle.js';
import { derivedEventId } from '../origin.js';
import { processManager, send, startProcess, type Cause, type ReactionContext } from '../processManager.js';

/**
 * A driver's first payout account enrolls the driver as a payee (docs/decisions/0055): inline after the
 * command that set it, and from the log by the catch-up, which heals a crash in between and, on its first
 * run, enrolls the drivers whose accounts were set before payees existed. One event per driver: its id
 * follows from the driver, and the register decides on its own version.
 */
const payeesProcess = processManager<ReactionContext, null>({
  name: 'settlement-payees',
  categories: ['wallet'],
  reactsTo: (e: Cause) => e.type === 'PayoutAccountSet',
  stateOf: async () => null,
  decide: (e, _state, now) => {
    const { driverId } = e.data as PayoutAccountSetData;
    return [
      send(payeesDecider, PAYEES_STREAM, { type: 'EnrollPayee', driverId, at: now.toISOString() }, 'settlement/payee', {
        eventIds: () => derivedEventId(PAYEES_STREAM, `payee-${driverId}`),
        // Drivers setting accounts at once all append here: a busy register waits its turn a few times more.
        attempts: 20,
      }),
    ];
  },
});

export const startPayeeEnrollment = (ctx: ReactionContext & { scheduler: Pick<Scheduler, 'register'> }) =>
  startProcess(ctx, payeesProcess, { everyMs: 2000, inline: true });

/** The drivers a cutoff visits, in the order they enrolled: read from the register's stream, never a read model. */
export const payeesOf = async (store: EventStore): Promise<number[]> =>
  enrolledOf((await loadState(store, PAYEES_STREAM, payeesDecider)).state);
