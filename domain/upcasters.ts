/**
 * Turns the data of an event type as stored at version `from` into version `from + 1`. An event type's
 * version today is one more than the number of its upcasters, so adding one for a change of shape is what
 * makes new appends carry the new version (docs/decisions/0041-event-schemas-and-versions.md).
 */
export interface Upcaster {
  type: string;
  from: number;
  /** Pure: the old data in, the next version's data out (typed by the author: `(old: OldShape) => …`). */
  up: (data: never) => unknown;
}

/**
 * Every change of an event's shape since it was first stored, per type from version 1 up. Empty while no
 * event has changed shape: stored events are read as they are.
 */
export const UPCASTERS: readonly Upcaster[] = [];
