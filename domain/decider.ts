/**
 * The shape every aggregate follows: events are folded into state by `evolve`, and `decide` turns a
 * command into new events or throws a DomainError. Both are pure: time and ids arrive inside the command.
 */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

export interface Decider<C, S, E extends DomainEvent> {
  initialState: S;
  evolve: (state: S, event: E) => S;
  decide: (command: C, state: S) => E[];
}

export const fold = <S, E>(evolve: (s: S, e: E) => S, initial: S, events: Iterable<E>): S => {
  let s = initial;
  for (const e of events) s = evolve(s, e);
  return s;
};
