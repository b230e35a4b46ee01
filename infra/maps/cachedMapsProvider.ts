import type { Clock } from '../clock.js';
import type { MapsProvider } from './port.js';

/** Enough for the typing bursts of many users; beyond it the oldest answer goes first. */
const MAX_ENTRIES = 1000;

/**
 * Answers an identical query (same operation and every argument, session token included) from memory for
 * `ttlMs`, so that a user retyping or a screen asking twice costs one provider call. Only answers are kept,
 * never failures. The session token is part of the key because the provider bills an autocomplete session
 * as a whole: a place lookup served from another session's answer would leave this session unconcluded.
 * Per process: instances do not share it, which only costs a few more provider calls.
 */
export const withMapsCache = (inner: MapsProvider, ttlMs: number, clock: Clock): MapsProvider => {
  const entries = new Map<string, { expiresAt: number; value: unknown }>();

  const cached = async <T>(key: string, load: () => Promise<T>): Promise<T> => {
    const now = clock.now().getTime();
    const hit = entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value as T;
    if (hit) entries.delete(key);
    const value = await load();
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(key, { expiresAt: now + ttlMs, value });
    return value;
  };

  return {
    reverseGeocode: (lat, lng) => cached(JSON.stringify(['reverse', lat, lng]), () => inner.reverseGeocode(lat, lng)),
    autocomplete: (input, sessionToken) =>
      cached(JSON.stringify(['autocomplete', input, sessionToken ?? null]), () =>
        inner.autocomplete(input, sessionToken),
      ),
    placeDetails: (placeId, sessionToken) =>
      cached(JSON.stringify(['place', placeId, sessionToken ?? null]), () => inner.placeDetails(placeId, sessionToken)),
  };
};
