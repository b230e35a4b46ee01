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
export interface ChannelOptions {
  /**
   * Events after which who may listen can have changed (a support room claimed): the gateway asks the
   * authorizer again for every socket on the channel and ends the subscriptions it now refuses, before it
   * delivers anything published after the event.
   */
  recheckOn?: readonly string[];
}

export class ChannelRegistry {
  private readonly authorizers = new Map<string, ChannelAuthorizer>();
  private readonly rechecks = new Map<string, ReadonlySet<string>>();

  register(prefix: string, authorize: ChannelAuthorizer, options: ChannelOptions = {}): void {
    if (!prefix.endsWith('.')) throw new Error(`Channel prefix must end with a dot: ${prefix}`);
    if (this.authorizers.has(prefix)) throw new Error(`Channel prefix already registered: ${prefix}`);
    this.authorizers.set(prefix, authorize);
    this.rechecks.set(prefix, new Set(options.recheckOn ?? []));
  }

  async authorize(actor: Actor, channel: string): Promise<ChannelVerdict> {
    const prefix = this.prefixOf(channel);
    if (prefix === null) return 'UnknownChannel';
    // No channel is on the auditor's read list (docs/decisions/0085-auditors-read-and-are-recorded.md).
    if (actor.auditor === true) return 'Forbidden';
    return (await this.authorizers.get(prefix)!(actor, channel)) ? 'ok' : 'Forbidden';
  }

  /** Whether this event on this channel calls for its listeners to be authorized again. */
  recheckAfter(channel: string, event: string): boolean {
    const prefix = this.prefixOf(channel);
    return prefix !== null && this.rechecks.get(prefix)!.has(event);
  }

  /** The longest registered prefix of a well-formed channel that names more than the prefix. */
  private prefixOf(channel: string): string | null {
    if (channel.length > 200 || !CHANNEL.test(channel)) return null;
    let best: string | null = null;
    for (const prefix of this.authorizers.keys())
      if (channel.startsWith(prefix) && (best === null || prefix.length > best.length)) best = prefix;
    return best === null || channel.length === best.length ? null : best;
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
