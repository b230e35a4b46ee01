import { inTransaction, type SqlPool } from '../db/sqlPool.js';
import { delegatingTo, type EventStore } from './port.js';

/**
 * For a store whose log is not in the read models' database (EventStoreDB): the rows a command writes
 * alongside its events go in a transaction of their own right after the append. The events are stored
 * first, so a failure there loses a position or a rate count, never an event.
 */
export const withAlongsideAfterAppend = (store: EventStore, pool: SqlPool): EventStore => ({
  ...delegatingTo(store),
  async appendToStreams(appends, options) {
    const result = await store.appendToStreams(appends);
    const writes = options?.alongside ?? [];
    if (writes.length === 0) return result;
    await inTransaction(pool, async (client) => {
      for (const write of writes) await write(client);
    });
    return result;
  },
});
