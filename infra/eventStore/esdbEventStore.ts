import type { EventStore } from './port.js';

export const createEsdbEventStore = (_url: string): EventStore => {
  throw new Error('EventStoreDB adapter is being written (issue #2)');
};
