import { pino, type Logger } from 'pino';

export type { Logger };

const redact = ['req.headers.authorization', 'req.headers.cookie'];

/**
 * JSON lines for machines; on a terminal (a developer running `npm start`) the same lines pretty-printed
 * by pino-pretty in its worker thread. A silent logger never starts that thread.
 */
export const createLogger = (level: string): Logger =>
  process.stdout.isTTY && level !== 'silent'
    ? pino({ level, redact, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } })
    : pino({ level, redact });
