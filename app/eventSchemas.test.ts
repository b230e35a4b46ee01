import { describe, expect, it } from 'vitest';
import { EVENT_SCHEMAS } from '../domain/events.js';
import { modules } from './modules.js';

describe('event schemas', () => {
  // Deciders' event types are inferred from their schemas, so they cannot lack one; this catches a type
  // that a read model handles but that nobody registered in domain/events.ts. It lives here, where every area's
  // projectors are listed.
  it('every event type a read model handles has a schema', () => {
    const handled = new Set(modules.flatMap((m) => m.projectors ?? []).flatMap((p) => Object.keys(p.handlers)));
    expect(handled.size).toBeGreaterThan(40);
    expect([...handled].filter((type) => !EVENT_SCHEMAS[type])).toEqual([]);
  });
});
