import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request, Response } from 'express';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Actor } from '../../domain/actor.js';
import type { Bus, BusSubscription } from '../bus/port.js';
import type { Authenticator } from '../identity/port.js';
import { SESSION_CHANGES, type SessionChange } from '../identity/sessionChanges.js';
import type { Logger } from '../logger.js';
import { channelsOf, type ChannelVerdict } from './channels.js';
import { clientAddressOf, SocketCaps, TOO_MANY_SOCKETS_CLOSE, type TrustProxy } from './socketCaps.js';

export interface WsGateway {
  /** Sockets currently open. */
  readonly connections: number;
  /** Says goodbye to every socket (1001), drops their bus subscriptions and detaches from the server. */
  close(): Promise<void>;
}

/** What the gateway uses of the service: the context object also keys its channel registry (channels.ts). */
export interface WsGatewayDeps {
  auth: Authenticator;
  bus: Bus;
  logger: Logger;
}

export interface WsGatewayOptions {
  path?: string;
  heartbeatMs?: number;
  maxSubscriptions?: number;
  /** Open sockets one user (WS_MAX_SOCKETS_PER_USER) and one client address (WS_MAX_SOCKETS_PER_IP) may hold. */
  maxSocketsPerUser?: number;
  maxSocketsPerIp?: number;
  /** Which hops may forward the client's address (Express's compiled TRUST_PROXY); none by default. */
  trustProxy?: TrustProxy;
}

interface Client {
  ws: WebSocket;
  /** The bearer token the socket opened with: checked again on every subscribe and on session changes. */
  token: string;
  actor: Actor;
  channels: Set<string>;
  alive: boolean;
  /** Messages of one socket are handled one after the other, so its replies keep their order. */
  queue: Promise<void>;
}

interface Fanout {
  /** The sockets frames go to. */
  clients: Set<Client>;
  /** Sockets joining, not yet authorized in the channel's order: they receive nothing, and keep it open. */
  joining: number;
  subscription: BusSubscription;
  /** Resolves once the bus knows the subscription (NATS: the server has it), so nothing published after is missed. */
  ready: Promise<void>;
  /** The channel's frames go out one after the other, so a re-check of its listeners holds back what follows. */
  queue: Promise<void>;
}

/** A socket that cannot keep up is dropped rather than buffering without bound. */
const MAX_BUFFERED_BYTES = 1 << 20;

/** Close code (private range) telling a client that its session ended: sign in again rather than reconnect. */
const SESSION_ENDED_CLOSE = 4401;

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found', 503: 'Service Unavailable' };

const refuse = (socket: Duplex, status: number, error: string, message: string) => {
  const body = JSON.stringify({ error, message });
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\nContent-Length: ` +
      `${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
};

const tokenOf = (req: IncomingMessage, url: URL): string | null => {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization?.trim() ?? '');
  return m?.[1].trim() || url.searchParams.get('token') || null;
};

/**
 * The Authenticator port speaks Express. An upgrade request has no Express response; headers the
 * authenticator sets (a rotated admin JWT) are kept and sent with the 101 answer.
 */
const responseStandIn = (headers: string[]): Response => {
  const res = {
    locals: {},
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.push(`${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
      return res;
    },
    getHeader: () => undefined,
    header: (name: string, value: string) => res.setHeader(name, value),
    set: (name: string, value: string) => res.setHeader(name, value),
  };
  return res as unknown as Response;
};

const messageOf = (raw: RawData): { type?: unknown; channel?: unknown } | null => {
  try {
    const v = JSON.parse(raw.toString());
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
};

/**
 * The websocket gateway (docs/architecture.md, messaging and real time) at `/ws` on the API's server. A socket
 * authenticates with the API's bearer token (header, or `?token=` for browsers), then subscribes to the
 * channels the registry lets it see. Every channel is one bus subscription shared by the sockets of this
 * instance, so what a projector publishes on any instance reaches sockets on all of them.
 */
export const attachWsGateway = (server: Server, ctx: WsGatewayDeps, options: WsGatewayOptions = {}): WsGateway => {
  const path = options.path ?? '/ws';
  const maxSubscriptions = options.maxSubscriptions ?? 100;
  const channels = channelsOf(ctx);
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 });
  const clients = new Set<Client>();
  const fanouts = new Map<string, Fanout>();
  const upgradeHeaders = new WeakMap<IncomingMessage, string[]>();
  const caps = new SocketCaps({ perUser: options.maxSocketsPerUser ?? 5, perIp: options.maxSocketsPerIp ?? 50 });
  const trustProxy = options.trustProxy ?? (() => false);

  wss.on('headers', (headers, req) => headers.push(...(upgradeHeaders.get(req) ?? [])));

  const send = (client: Client, message: unknown) => {
    if (client.ws.readyState === WebSocket.OPEN) client.ws.send(JSON.stringify(message));
  };

  const deliver = async (channel: string, fanout: Fanout, payload: unknown) => {
    const p = (payload ?? {}) as { event?: unknown; data?: unknown };
    const frame = JSON.stringify({
      type: 'message',
      channel,
      event: typeof p.event === 'string' ? p.event : 'message',
      data: typeof p.event === 'string' ? (p.data ?? null) : payload,
    });
    for (const c of fanout.clients) {
      if (c.ws.readyState !== WebSocket.OPEN) continue;
      if (c.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        c.ws.terminate();
        continue;
      }
      c.ws.send(frame);
    }
    if (typeof p.event === 'string' && channels.recheckAfter(channel, p.event)) await recheck(channel, fanout);
  };

  /** Ends the subscriptions the channel's authorizer now refuses (or cannot judge: closed by default). */
  const recheck = async (channel: string, fanout: Fanout) => {
    await Promise.all(
      [...fanout.clients].map(async (c) => {
        const verdict = await channels.authorize(c.actor, channel).catch((err: unknown) => {
          ctx.logger.error({ err, channel }, 'channel re-authorization failed');
          return 'Unavailable' as const;
        });
        if (verdict === 'ok') return;
        leave(c, channel);
        send(c, { type: 'unsubscribed', channel, reason: verdict === 'Unavailable' ? verdict : 'Forbidden' });
      }),
    );
  };

  /**
   * Joins a channel's fanout. The decisive authorization runs as a step of the channel's own queue, after
   * every frame before it and before every frame after it: a change of who may listen (a support room
   * claimed) is either seen by this authorization, or published after it and re-checked with this socket
   * among the listeners. An authorization made before joining could be overtaken by the change and its
   * re-check (docs/decisions/0091-a-subscription-is-authorized-in-the-channel-order.md).
   */
  const join = async (client: Client, channel: string): Promise<ChannelVerdict> => {
    let fanout = fanouts.get(channel);
    if (!fanout) {
      const f: Fanout = {
        clients: new Set(),
        joining: 0,
        subscription: null as never,
        ready: Promise.resolve(),
        queue: Promise.resolve(),
      };
      f.subscription = ctx.bus.subscribe(channel, (m) => {
        f.queue = f.queue
          .then(() => deliver(channel, f, m.data))
          .catch((err) => ctx.logger.error({ err, channel }, 'websocket delivery failed'));
      });
      f.ready = ctx.bus.flush();
      fanouts.set(channel, (fanout = f));
    }
    const f = fanout;
    client.channels.add(channel);
    f.joining += 1;
    try {
      await f.ready;
      const admitted = f.queue.then(async () => {
        const verdict = await channels.authorize(client.actor, channel);
        if (verdict === 'ok' && client.channels.has(channel)) f.clients.add(client);
        return verdict;
      });
      f.queue = admitted.then(
        () => undefined,
        () => undefined,
      );
      return await admitted;
    } finally {
      f.joining -= 1;
      dropIfIdle(channel, f);
    }
  };

  /** A channel nobody listens to or is joining holds no bus subscription. */
  const dropIfIdle = (channel: string, fanout: Fanout) => {
    if (fanout.clients.size > 0 || fanout.joining > 0 || fanouts.get(channel) !== fanout) return;
    fanout.subscription.unsubscribe();
    fanouts.delete(channel);
  };

  const leave = (client: Client, channel: string) => {
    client.channels.delete(channel);
    const fanout = fanouts.get(channel);
    if (!fanout) return;
    fanout.clients.delete(client);
    dropIfIdle(channel, fanout);
  };

  const subscribe = async (client: Client, channel: unknown) => {
    if (typeof channel !== 'string')
      return send(client, { type: 'error', channel: channel ?? null, error: 'UnknownChannel' });
    if (client.channels.has(channel)) return send(client, { type: 'subscribed', channel });
    if (client.channels.size >= maxSubscriptions)
      return send(client, { type: 'error', channel, error: 'TooManySubscriptions' });
    let verdict;
    try {
      if (!(await stillValid(client, channel))) return;
      verdict = await channels.authorize(client.actor, channel);
    } catch (err) {
      ctx.logger.error({ err, channel }, 'channel authorization failed');
      return send(client, { type: 'error', channel, error: 'Unavailable' });
    }
    if (verdict !== 'ok') return send(client, { type: 'error', channel, error: verdict });
    if (client.ws.readyState !== WebSocket.OPEN) return;
    try {
      verdict = await join(client, channel);
    } catch (err) {
      ctx.logger.error({ err, channel }, 'bus subscription failed');
      leave(client, channel);
      return send(client, { type: 'error', channel, error: 'Unavailable' });
    }
    if (verdict !== 'ok') {
      leave(client, channel);
      return send(client, { type: 'error', channel, error: verdict });
    }
    send(client, { type: 'subscribed', channel });
  };

  /** A socket whose token was revoked, logged out or idled out, or whose user was deactivated, is closed. */
  const stillValid = async (client: Client, channel: string | null = null): Promise<boolean> => {
    const actor = await ctx.auth.stillValid(client.token);
    if (actor) {
      client.actor = actor;
      return true;
    }
    send(client, { type: 'error', channel, error: 'Unauthorized' });
    client.ws.close(SESSION_ENDED_CLOSE, 'Session ended');
    return false;
  };

  const sessionChanges = ctx.bus.subscribe(SESSION_CHANGES, (m) => {
    const change = m.data as SessionChange;
    for (const c of clients) {
      if ((c.actor.role === 'ADMIN') !== (change.role === 'ADMIN') || c.actor.id !== change.id) continue;
      stillValid(c).catch((err) => ctx.logger.error({ err }, 'websocket session check failed'));
    }
  });

  const handle = async (client: Client, raw: RawData) => {
    const msg = messageOf(raw);
    switch (msg?.type) {
      case 'subscribe':
        return subscribe(client, msg.channel);
      case 'unsubscribe':
        if (typeof msg.channel === 'string') leave(client, msg.channel);
        return send(client, { type: 'unsubscribed', channel: msg.channel ?? null });
      case 'ping':
        return send(client, { type: 'pong' });
      default:
        return send(client, { type: 'error', error: msg ? 'UnknownMessageType' : 'BadMessage' });
    }
  };

  const onConnection = (ws: WebSocket, token: string, actor: Actor, ip: string) => {
    ws.on('error', () => ws.terminate());
    // The handshake is done, so the client reads the close code (an HTTP refusal reaches a browser as 1006).
    const place = caps.take(actor, ip);
    if (!place.ok) return ws.close(TOO_MANY_SOCKETS_CLOSE, place.reason);
    const client: Client = { ws, token, actor, channels: new Set(), alive: true, queue: Promise.resolve() };
    clients.add(client);
    ws.on('pong', () => (client.alive = true));
    ws.on('message', (raw) => {
      client.alive = true;
      client.queue = client.queue
        .then(() => handle(client, raw))
        .catch((err) => ctx.logger.error({ err }, 'websocket message failed'));
    });
    ws.on('close', () => {
      place.release();
      clients.delete(client);
      for (const channel of [...client.channels]) leave(client, channel);
    });
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname !== path) return refuse(socket, 404, 'RouteNotFound', 'No websocket endpoint at this path.');
    const token = tokenOf(req, url);
    const headers: string[] = [];
    const authenticated = token
      ? ctx.auth.authenticate(token, req as Request, responseStandIn(headers))
      : Promise.resolve(null);
    authenticated.then(
      (actor) => {
        if (!actor) return refuse(socket, 401, 'Unauthorized', 'Missing, invalid or expired token.');
        upgradeHeaders.set(req, headers);
        const ip = clientAddressOf(req, trustProxy);
        wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, token!, actor, ip));
      },
      (err) => {
        ctx.logger.error({ err }, 'websocket authentication failed');
        refuse(socket, 503, 'Unavailable', 'Try again later.');
      },
    );
  };
  server.on('upgrade', onUpgrade);

  // A peer that vanished without closing answers no ping: it is dropped at the next beat.
  const heartbeat = setInterval(() => {
    for (const c of clients) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();

  return {
    get connections() {
      return clients.size;
    },
    async close() {
      clearInterval(heartbeat);
      sessionChanges.unsubscribe();
      server.off('upgrade', onUpgrade);
      const closed = [...clients].map(
        (c) =>
          new Promise<void>((resolve) =>
            c.ws.readyState === WebSocket.CLOSED ? resolve() : c.ws.once('close', () => resolve()),
          ),
      );
      for (const c of clients) c.ws.close(1001, 'Server shutting down');
      const timer = setTimeout(() => clients.forEach((c) => c.ws.terminate()), 2000);
      await Promise.all(closed);
      clearTimeout(timer);
      for (const f of fanouts.values()) f.subscription.unsubscribe();
      fanouts.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
};
