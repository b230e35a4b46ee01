import { CONFIG_STREAM } from '../../domain/settlement/events.js';
import { configDecider, type SettlementConfig } from '../../domain/settlement/config.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { loadState } from '../handle.js';

type Deps = Pick<CommandDeps, 'clock' | 'handle' | 'store'>;

/** The configuration folded from its stream (a handful of events): defaults until the first change. */
export const loadSettlementConfig = async (ctx: Pick<CommandDeps, 'store'>): Promise<SettlementConfig> =>
  (await loadState(ctx.store, CONFIG_STREAM, configDecider)).state;

export const changeSettlementConfig = async (
  ctx: Deps,
  patch: Partial<SettlementConfig>,
  adminId: number,
  metadata: EventMetadata,
) => {
  const at = ctx.clock.now().toISOString();
  const { position, events, state } = await ctx.handle(
    configDecider,
    CONFIG_STREAM,
    { patch, adminId, at },
    { metadata },
  );
  return { position, change: events[0] ?? null, config: state };
};
