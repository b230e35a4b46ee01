import type { Providers } from '../providers.js';
import { timed, type Metrics } from './metrics.js';

/** The outside providers whose calls are counted (the rest of Providers are ports between our own areas). */
const OUTSIDE: readonly string[] = ['sms', 'mail', 'push', 'payments', 'payouts', 'maps'];

/**
 * A provider whose every method call (also one level down: `payments.checkout.createIntent`) is timed and
 * counted by provider, operation and outcome: resolved is ok, thrown is error. The operation is the
 * method's name in our code, so labels stay bounded whatever the provider answers.
 */
const measured = <T extends object>(metrics: Metrics, provider: string, target: T, prefix = ''): T =>
  new Proxy(target, {
    get(obj, key, receiver) {
      const value: unknown = Reflect.get(obj, key, receiver);
      if (typeof key !== 'string') return value;
      const operation = prefix + key;
      if (typeof value === 'function')
        return (...args: unknown[]) =>
          timed(
            () => Promise.resolve((value as (...a: unknown[]) => unknown).apply(obj, args)),
            (seconds, outcome) => {
              metrics.providerCalls.inc({ provider, operation, outcome });
              metrics.providerDuration.observe({ provider, operation }, seconds);
            },
          );
      if (value && typeof value === 'object' && prefix === '') return measured(metrics, provider, value, `${key}.`);
      return value;
    },
  });

/** Puts every outside provider the modules set behind its measured stand-in, in place. */
export const measureProviders = (providers: Providers, metrics: Metrics): void => {
  const all = providers as unknown as Record<string, object | null | undefined>;
  for (const name of OUTSIDE) {
    const provider = all[name];
    if (provider) all[name] = measured(metrics, name, provider);
  }
};
