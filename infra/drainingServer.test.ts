import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDrainingServer, type DrainingServer } from './drainingServer.js';

/** One GET on the agent's kept-alive socket: its status, its Connection header and whether the socket was reused. */
const get = (port: number, agent: Agent) =>
  new Promise<{ status: number; connection: string | undefined; reused: boolean }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode!, connection: res.headers.connection, reused: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    req.end();
  });

/** Issue #44: the grace before the drain answers what arrives on open connections instead of closing them. */
describe('a draining server, in its grace', () => {
  let http: DrainingServer | undefined;
  let agent: Agent | undefined;
  afterEach(async () => {
    agent?.destroy();
    await http?.drain(100);
    http = agent = undefined;
  });

  it('answers a request sent on an idle kept-alive socket, with Connection: close, and new connections too', async () => {
    http = createDrainingServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => http!.server.listen(0, '127.0.0.1', resolve));
    const { port } = http.server.address() as AddressInfo;
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(port, agent)).toMatchObject({ status: 200, connection: 'keep-alive' });

    const grace = http.closeEachAnswer(300);
    // The socket the first answer left open is idle: the grace must not close it under the next request.
    expect(await get(port, agent)).toEqual({ status: 200, connection: 'close', reused: true });
    expect(await get(port, agent)).toEqual({ status: 200, connection: 'close', reused: false });
    await grace;
    await http.drain(1000);
    await expect(get(port, agent)).rejects.toThrow();
  });
});
