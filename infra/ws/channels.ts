import type { Actor } from '../../domain/actor.js';

/** Whether this actor may listen on this channel (the full channel name, prefix included). */
export type ChannelAuthorizer = (actor: Actor, channel: string) => Promise<boolean> | boolean;

export type ChannelVerdict = 'ok' | 'Forbidden' | 'UnknownChannel';

/** Dot-separated tokens, no wildcards: a socket names one exact channel. */
const CHANNEL = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/;

/**
 * Which channels exist and who may subscribe to them. Each area registers the prefix of its channels in
 * its module's init (`channelsOf(ctx).register('chat.rooms.', …)`); a channel with no registered prefix
 * does not exist for the gateway.
 */
export class ChannelRegistry {
  private readonly authorizers = new Map<string, ChannelAuthorizer>();

  register(prefix: string, authorize: ChannelAuthorizer): void {
    if (!prefix.endsWith('.')) throw new Error(`Channel prefix must end with a dot: ${prefix}`);
    if (this.authorizers.has(prefix)) throw new Error(`Channel prefix already registered: ${prefix}`);
    this.authorizers.set(prefix, authorize);
  }

  async authorize(actor: Actor, channel: string): Promise<ChannelVerdict> {
    if (channel.length > 200 || !CHANNEL.test(channel)) return 'UnknownChannel';
    let best: string | null = null;
    for (const prefix of this.authorizers.keys())
      if (channel.startsWith(prefix) && (best === null || prefix.length > best.length)) best = prefix;
    if (best === null || channel.length === best.length) return 'UnknownChannel';
    return (await this.authorizers.get(best)!(actor, channel)) ? 'ok' : 'Forbidden';
  }
}

const registries = new WeakMap<object, ChannelRegistry>();

/**
 * The channel registry of one service instance, keyed by its context (two instances in one process keep theirs
 * apart).
 */
export const channelsOf = (ctx: object): ChannelRegistry => {
  let r = registries.get(ctx);
  if (!r) registries.set(ctx, (r = new ChannelRegistry()));
  return r;
};
