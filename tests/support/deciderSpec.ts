import { expect } from 'vitest';
import type { Decider, DomainEvent } from '../../domain/decider.js';
import { DomainError } from '../../domain/errors.js';

/**
 * Given / when / then for a decider: given past events (or past commands, decided in turn), when a
 * command, then exactly these events, or a refusal with this error code.
 *
 *   spec(orderDecider).givenCommands(create, bid).when(accept).then([{ type: 'OfferAccepted', data: … }]);
 *   spec(orderDecider).given(events).when(accept).thenThrows('Conflict');
 */

/** The DomainError `fn` throws; any other outcome fails the test. */
export const errorOf = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError, none was thrown');
};

export const spec = <C, S, E extends DomainEvent>(decider: Decider<C, S, E>) => {
  const fold = (events: E[], from: S = decider.initialState): S => events.reduce(decider.evolve, from);
  /** The events the commands produce, each decided on the state the previous ones left. */
  const history = (commands: C[]): E[] => {
    const events: E[] = [];
    for (const c of commands) events.push(...decider.decide(c, fold(events)));
    return events;
  };
  const from = (past: E[]) => ({
    /** The state the past folds to (for assertions on evolve). */
    state: () => fold(past),
    when: (command: C) => {
      const decided = () => decider.decide(command, fold(past));
      return {
        then: (expected: E[]) => expect(decided()).toEqual(expected),
        /** Nothing to do: the command is a no-op on this state (a late timer, a repeated request). */
        thenNothing: () => expect(decided()).toEqual([]),
        /** The events, for assertions on part of their data. */
        events: decided,
        /** The state after the command's events. */
        stateAfter: () => fold(decided(), fold(past)),
        thenThrows: (code: string, details?: Record<string, unknown>) => {
          const err = errorOf(decided);
          expect(err.code).toBe(code);
          if (details) expect(err.details).toMatchObject(details);
          return err;
        },
      };
    },
  });
  return {
    given: (...past: E[]) => from(past),
    givenCommands: (...commands: C[]) => from(history(commands)),
    history,
    fold,
  };
};
