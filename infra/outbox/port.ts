/**
 * What the SMS, mail and push simulators "sent": kept so that developers and tests can read an OTP, a
 * recovery link or a push payload through GET /dev/outbox (never served in production).
 */
export interface OutboxMessage {
  channel: 'sms' | 'mail' | 'push';
  to: string;
  subject?: string | null;
  body: string;
  data?: Record<string, unknown> | null;
}

export interface DevOutbox {
  record(message: OutboxMessage): Promise<void>;
  list(to: string): Promise<(OutboxMessage & { created_at: string })[]>;
}
