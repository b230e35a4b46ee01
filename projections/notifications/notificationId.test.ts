import { describe, expect, it } from 'vitest';
import { notificationIdFor, uuidV5 } from './notificationId.js';

describe('uuidV5', () => {
  it('matches the RFC 4122 reference value for the DNS namespace', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('derives the same notification id for the same event, user and type, and different ones otherwise', () => {
    const e = '0b7a6a53-2f2e-4a4b-9d7c-1f0d3f4a5b6c';
    expect(notificationIdFor(e, 7, 'offer_received')).toBe(notificationIdFor(e, 7, 'offer_received'));
    expect(notificationIdFor(e, 7, 'offer_received')).not.toBe(notificationIdFor(e, 8, 'offer_received'));
    expect(notificationIdFor(e, 7, 'offer_received')).not.toBe(notificationIdFor(e, 7, 'order_delivered'));
    expect(notificationIdFor(e, 7, 'offer_received')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
