import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';

describe('maps configuration', () => {
  it('refuses a maps key without the provider URL, naming the variable', () => {
    expect(() => loadConfig({ MAPS_API_KEY: 'k' })).toThrow(ConfigError);
    expect(() => loadConfig({ MAPS_API_KEY: 'k' })).toThrow(/MAPS_PROVIDER_URL/);
  });

  it('takes both together; neither is fine too (geocoding then answers 503)', () => {
    expect(loadConfig({ MAPS_API_KEY: 'k', MAPS_PROVIDER_URL: 'http://127.0.0.1:1/maps/api' })).toMatchObject({
      MAPS_TIMEOUT_MS: 5000,
      MAPS_CACHE_TTL_SECONDS: 300,
    });
    expect(loadConfig({}).MAPS_API_KEY).toBeUndefined();
  });
});
