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

/**
 * Several commands decided in turn, each on the state the previous one's events leave: one decision, so
 * one append (the live location sent with an arrival is recorded with it).
 */
export const inTurn = <C, S, E extends DomainEvent>(decider: Decider<C, S, E>): Decider<C[], S, E> => ({
  initialState: decider.initialState,
  evolve: decider.evolve,
  decide: (commands, state) => {
    const events: E[] = [];
    let s = state;
    for (const c of commands) {
      const decided = decider.decide(c, s);
      events.push(...decided);
      s = fold(decider.evolve, s, decided);
    }
    return events;
  },
});
