import { describe, expect, it } from 'vitest';
import type { Actor } from '../../domain/actor.js';
import { ChannelRegistry } from './channels.js';

const client: Actor = { id: 7, role: 'CLIENT' };

describe('ChannelRegistry', () => {
  const registry = new ChannelRegistry();
  registry.register('chat.rooms.', (_a, channel) => channel === 'chat.rooms.1');
  registry.register('chat.rooms.support.', () => true);

  it('asks the authorizer of the longest matching prefix', async () => {
    expect(await registry.authorize(client, 'chat.rooms.1')).toBe('ok');
    expect(await registry.authorize(client, 'chat.rooms.2')).toBe('Forbidden');
    expect(await registry.authorize(client, 'chat.rooms.support.2')).toBe('ok');
  });

  it('lets an auditor listen to no channel, even one whose authorizer admits every caller', async () => {
    const auditor: Actor = { id: 3, role: 'ADMIN', auditor: true };
    expect(await registry.authorize(auditor, 'chat.rooms.support.2')).toBe('Forbidden');
    expect(await registry.authorize({ ...auditor, auditor: false }, 'chat.rooms.support.2')).toBe('ok');
  });

  it('knows no channel without a registered prefix, a bare prefix, wildcards or odd characters', async () => {
    for (const channel of [
      'orders.1',
      'chat.rooms.',
      'chat.rooms',
      'chat.rooms.*',
      'chat.rooms.>',
      'chat.rooms.1 ',
      'chat..rooms.1',
      `chat.rooms.${'x'.repeat(200)}`,
    ]) {
      expect(await registry.authorize(client, channel), channel).toBe('UnknownChannel');
    }
  });

  it('refuses a second registration of a prefix and a prefix without its dot', () => {
    expect(() => registry.register('chat.rooms.', () => true)).toThrow();
    expect(() => registry.register('orders', () => true)).toThrow();
  });
});
