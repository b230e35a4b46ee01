/** Where a push goes: one registered device. */
export interface PushTarget {
  token: string;
  platform: 'android' | 'ios';
}

/** One inbox notification as a push (spec 6: the payload carries the notification's id, type and data). */
export interface PushMessage {
  userId: number;
  notificationId: string;
  type: string;
  title: string;
  body: string;
  priority: string;
  data: Record<string, unknown>;
}

/** `unregistered`: the provider no longer knows the token (app removed, token rotated); we forget it. */
export type PushResult = 'sent' | 'unregistered';

/** The push provider port: an FCM-style HTTP adapter, or the recording simulator. Other failures throw. */
export interface PushSender {
  send(target: PushTarget, message: PushMessage): Promise<PushResult>;
}

declare module '../providers.js' {
  interface Providers {
    push: PushSender;
  }
}
