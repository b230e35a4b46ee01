import WebSocket from 'ws';
import type { TestService } from './testService.js';

/** A socket on the gateway plus everything it received, so a test can wait for the frame it expects. */
export interface Socket {
  ws: WebSocket;
  frames: any[];
  next(match: (frame: any) => boolean): Promise<any>;
  send(frame: unknown): void;
  /** Subscribes and resolves with the gateway's answer for that channel (subscribed or error). */
  subscribe(channel: string): Promise<any>;
  close(): Promise<void>;
  /** Resolves when the socket closes, with the close code and reason the server (or the client) sent. */
  closed: Promise<{ code: number; reason: string }>;
}

/**
 * Opens `/ws` (or another path) with the token in the header or in `?token=`. A refused upgrade rejects
 * with `{status, body}` of the HTTP answer.
 */
export const openSocket = (
  t: TestService,
  opts: { token?: string; via?: 'header' | 'query'; path?: string; headers?: Record<string, string> } = {},
): Promise<Socket> => {
  const { token, via = 'header', path = '/ws', headers = {} } = opts;
  const url = `ws://127.0.0.1:${t.port}${path}${token && via === 'query' ? `?token=${encodeURIComponent(token)}` : ''}`;
  const ws = new WebSocket(url, {
    headers: { ...headers, ...(token && via === 'header' ? { authorization: `Bearer ${token}` } : {}) },
  });
  const frames: any[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const waiters: { match: (f: any) => boolean; resolve: (f: any) => void }[] = [];
  ws.on('message', (raw) => {
    const frame = JSON.parse(raw.toString());
    frames.push(frame);
    for (const w of [...waiters]) {
      if (!w.match(frame)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(frame);
    }
  });
  const next = (match: (f: any) => boolean): Promise<any> => {
    const seen = frames.find(match);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
  };
  const send = (frame: unknown) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  const socket: Socket = {
    ws,
    frames,
    next,
    send,
    subscribe: (channel) => {
      send({ type: 'subscribe', channel });
      return next((f) => f.channel === channel && (f.type === 'subscribed' || f.type === 'error'));
    },
    closed,
    close: () =>
      new Promise((resolve) =>
        ws.readyState === WebSocket.CLOSED ? resolve() : (ws.once('close', () => resolve()), ws.close()),
      ),
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(socket));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () =>
        reject(
          Object.assign(new Error(`HTTP ${res.statusCode}`), {
            status: res.statusCode,
            body: body ? JSON.parse(body) : null,
          }),
        ),
      );
    });
    ws.once('error', reject);
  });
};
