/**
 * The message bus port (docs/architecture.md, messaging and real time). Subjects are dot-separated tokens;
 * a subscription pattern may use `*` for one token and `>` for the rest, as NATS does.
 */
export interface BusMessage<T = unknown> {
  subject: string;
  data: T;
  /** What travels beside the data: the W3C trace context of the message's cause, when traced. */
  headers?: Record<string, string>;
}

export interface BusSubscription {
  unsubscribe(): void;
}

export interface Bus {
  readonly name: string;
  publish(subject: string, data: unknown, headers?: Record<string, string>): Promise<void>;
  subscribe(pattern: string, handler: (message: BusMessage) => void): BusSubscription;
  /** Resolves once everything published before it has reached the server (NATS) or the handlers. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** A networked bus: whether it is connected now, and how often it lost and remade its connection. */
  connection?(): { connected: boolean; reconnects: number };
}

export const subjectMatches = (pattern: string, subject: string): boolean => {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
};
