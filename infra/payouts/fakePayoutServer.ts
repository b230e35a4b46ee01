import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that plays the payout provider for tests: each call is answered by `answer`
 * (status and body, `'hang'` to never answer, `'garbage'` for a body that is not JSON). It keeps the
 * payments it made by internal_id, the way a real provider deduplicates.
 */
export type FakeAnswer = { status: number; body: unknown } | 'hang' | 'garbage';

export const startFakePayoutProvider = async (
  answer: (request: { internal_id: string }, call: number) => FakeAnswer,
) => {
  const calls: { internal_id: string; authorization: string | undefined }[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const request = JSON.parse(raw) as { internal_id: string };
      calls.push({ internal_id: request.internal_id, authorization: req.headers.authorization });
      const a = answer(request, calls.filter((c) => c.internal_id === request.internal_id).length);
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      if (a === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status": ');
        return;
      }
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: async () => {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
