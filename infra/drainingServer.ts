import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';

export interface DrainingServer {
  server: Server;
  /**
   * The grace before a drain: for `graceMs` the server still accepts and answers everything, each answer
   * with `Connection: close`, so clients leave their kept-alive sockets on their own, between requests,
   * instead of having them closed under a request they are writing.
   */
  closeEachAnswer(graceMs: number): Promise<void>;
  /**
   * Graceful stop: stop accepting, close idle keep-alive sockets at once, answer every request already
   * read with `Connection: close`, and resolve when the last response is out. Sockets still busy after
   * `timeoutMs` are cut (a handler that hangs must not hold the process for ever).
   */
  drain(timeoutMs: number): Promise<void>;
}

/**
 * An HTTP server that can drain. Without it, keep-alive clients keep sending on their sockets after
 * SIGTERM until the timeout cuts them, and a request cut after it was committed looks failed to its
 * client, whose retry then conflicts.
 */
export const createDrainingServer = (listener: RequestListener): DrainingServer => {
  let draining = false;
  let closing = false;
  const unanswered = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    if (closing) res.setHeader('Connection', 'close');
    unanswered.add(res);
    res.once('close', () => {
      unanswered.delete(res);
      // A response that went out with keep-alive before the drain began leaves an idle socket behind.
      if (draining) setImmediate(() => server.closeIdleConnections());
    });
    listener(req, res);
  });
  // An idle kept-alive socket is closed by the client before the server: a client that reuses a socket in
  // the instant the server closes it sees ECONNRESET for a request that never arrived (Node's 5 s default
  // sits right beside the clients' 4 s). The drain closes idle sockets itself.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const closeEach = () => {
    closing = true;
    for (const res of unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  return {
    server,
    async closeEachAnswer(graceMs) {
      closeEach();
      await new Promise((resolve) => setTimeout(resolve, graceMs));
    },
    async drain(timeoutMs) {
      draining = true;
      closeEach();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
      await closed;
      clearTimeout(timer);
    },
  };
};
