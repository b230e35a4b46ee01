import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { loadConfig } from '../config.js';
import { adminJwt } from './adminJwt.js';

describe('admin JWT', () => {
  it('valid for 60 minutes, then expired but still authentic; another key is refused', async () => {
    const clock = new ManualClock();
    const jwt = adminJwt(loadConfig({}), clock);
    const { token, claims } = await jwt.issue(7);
    expect(claims.exp - claims.iat).toBe(3600);
    expect(await jwt.verify(token)).toMatchObject({ state: 'valid', claims: { adminId: 7, jti: claims.jti } });
    clock.advance(3600 * 1000);
    expect(await jwt.verify(token)).toMatchObject({ state: 'expired', claims: { adminId: 7 } });
    const other = adminJwt(loadConfig({ JWT_SECRET: 'another-secret-of-length' }), clock);
    expect(await other.verify(token)).toBeNull();
    expect(await jwt.verify('garbage')).toBeNull();
  });
});
