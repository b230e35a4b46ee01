import { useSyncExternalStore } from 'react';
import type { components } from './schema';

export type Admin = components['schemas']['Admin'];

interface Session {
  token: string;
  admin: Admin;
}

/**
 * The signed-in admin: the JWT and who it belongs to, in sessionStorage (one tab's life, never a cookie,
 * so no request carries it without our code putting it in the Authorization header).
 */
const KEY = 'console.session';
let current: Session | null = (() => {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
})();
const listeners = new Set<() => void>();

const save = (next: Session | null) => {
  current = next;
  if (next) sessionStorage.setItem(KEY, JSON.stringify(next));
  else sessionStorage.removeItem(KEY);
  for (const l of listeners) l();
};

export const session = {
  get: () => current,
  token: () => current?.token ?? null,
  signIn: (token: string, admin: Admin) => save({ token, admin }),
  /** A renewed JWT from a response's Authorization header replaces the one held. */
  renew: (token: string) => {
    if (current && current.token !== token) save({ ...current, token });
  },
  signOut: (expired = false) => {
    save(null);
    expiredNotice = expired;
  },
  subscribe: (l: () => void) => {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};

let expiredNotice = false;
/** Whether the last sign-out was the service's 401 (the sign-in page says so), read once. */
export const takeExpiredNotice = () => {
  const was = expiredNotice;
  expiredNotice = false;
  return was;
};

export const useSession = () => useSyncExternalStore(session.subscribe, session.get);

/**
 * Whether the signed-in admin is an auditor: it reads what an audit needs and changes nothing, so the console
 * shows it only those screens and no action that writes (the API refuses it the rest anyway).
 */
export const useAuditor = () => useSession()?.admin.auditor === true;
