/**
 * The websocket protocol of `/ws` (infra/ws/gateway.ts) as an AsyncAPI 3 document, served beside the
 * OpenAPI one at /api/v1/asyncapi.json. Hand-written: the gateway's frames are few and fixed, and the
 * event payloads they carry are the REST views of the OpenAPI document (referenced by name).
 */

const frame = (type: string, properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  required: ['type', ...required],
  properties: { type: { const: type }, ...properties },
});

const channelName = { type: 'string', description: '`chat.rooms.<roomId>` or `notifications.<userId>`' };

const messages = {
  subscribe: {
    name: 'subscribe',
    summary: 'Start receiving a channel',
    payload: frame('subscribe', { channel: channelName }, ['channel']),
  },
  unsubscribe: {
    name: 'unsubscribe',
    summary: 'Stop receiving a channel',
    payload: frame('unsubscribe', { channel: channelName }, ['channel']),
  },
  ping: { name: 'ping', summary: 'Application-level keep-alive (answered with pong)', payload: frame('ping', {}) },
  subscribed: {
    name: 'subscribed',
    summary: 'The channel is joined',
    payload: frame('subscribed', { channel: channelName }, ['channel']),
  },
  unsubscribed: {
    name: 'unsubscribed',
    summary: 'The channel is left',
    payload: frame(
      'unsubscribed',
      {
        channel: { type: ['string', 'null'] },
        reason: {
          enum: ['Forbidden', 'Unavailable'],
          description:
            'Only when the server ended the subscription itself: Forbidden (the channel is no longer ' +
            'yours, e.g. a pooled support room another admin claimed: the room.claimed event is the last ' +
            'frame heard), Unavailable (whether it still is could not be checked; subscribe again)',
        },
      },
      ['channel'],
    ),
  },
  pong: { name: 'pong', summary: 'Answer to ping', payload: frame('pong', {}) },
  error: {
    name: 'error',
    summary: 'A refused frame or subscription',
    payload: frame(
      'error',
      {
        channel: { type: ['string', 'null'] },
        error: {
          type: 'string',
          description:
            'UnknownChannel (no such channel prefix), Forbidden (not yours), TooManySubscriptions ' +
            '(100 per socket), Unavailable (try again), UnknownMessageType, BadMessage (not a JSON ' +
            'object), Unauthorized (the session ended: the socket is then closed with code 4401)',
        },
      },
      ['error'],
    ),
  },
  chatEvent: {
    name: 'chatEvent',
    summary: 'A chat room event',
    payload: frame(
      'message',
      {
        channel: { type: 'string', pattern: '^chat\\.rooms\\.[0-9]+$' },
        event: { enum: ['message.created', 'room.claimed', 'room.released'] },
        data: {
          description:
            'message.created: the message as GET /chat-rooms/{roomId}/messages ' +
            'lists it; room.claimed / room.released: {room_id, order_id, status}',
          type: 'object',
        },
      },
      ['channel', 'event', 'data'],
    ),
  },
  notificationEvent: {
    name: 'notificationEvent',
    summary: 'A notification inbox event',
    payload: frame(
      'message',
      {
        channel: { type: 'string', pattern: '^notifications\\.[0-9]+$' },
        event: {
          enum: ['notification.created', 'notification.read', 'notifications.read_all', 'notification.deleted'],
        },
        data: {
          description:
            'notification.created: the notification as GET /notifications lists it; notification.read: ' +
            '{id, read_at}; notifications.read_all: {read_at}; notification.deleted: {id}',
          type: 'object',
        },
      },
      ['channel', 'event', 'data'],
    ),
  },
};

const ref = (name: keyof typeof messages, channel: 'ws') => ({ $ref: `#/channels/${channel}/messages/${name}` });

export const asyncApiDocument = {
  asyncapi: '3.0.0',
  info: {
    title: 'Water delivery marketplace real time',
    version: '1.0.0',
    description:
      'Connect a websocket to /ws on the API port with the API bearer token (Authorization header, or ' +
      '?token= for browsers); a bad token is refused with 401 before the upgrade. When the token is later ' +
      'revoked or logged out, idles out, or its user is deactivated, the server sends an Unauthorized error ' +
      'and closes the socket with code 4401 (sign in again); every subscribe checks the token again. ' +
      'One user may hold at most WS_MAX_SOCKETS_PER_USER (5) open sockets and one client address at most ' +
      'WS_MAX_SOCKETS_PER_IP (50): a socket over either cap is opened and at once closed with code 4429 and a ' +
      'reason naming the cap (close another socket before opening one more). ' +
      'Frames are JSON text. The server pings every WS_HEARTBEAT_MS and drops a socket that missed a pong.',
  },
  servers: {
    // The websocket shares the API's host and port; the channel's address (/ws) is the path, so the server
    // names no path of its own (the two would join as /ws/ws).
    api: {
      host: '{host}',
      protocol: 'ws',
      description: 'The API host; wss where TLS ends in front of it',
      variables: { host: { default: 'localhost:3000', description: 'host[:port] the API is served at' } },
      security: [{ $ref: '#/components/securitySchemes/bearer' }, { $ref: '#/components/securitySchemes/tokenQuery' }],
    },
  },
  channels: {
    ws: {
      address: '/ws',
      messages,
    },
  },
  operations: {
    sendSubscribe: {
      action: 'send',
      channel: { $ref: '#/channels/ws' },
      messages: [ref('subscribe', 'ws'), ref('unsubscribe', 'ws'), ref('ping', 'ws')],
    },
    receiveControl: {
      action: 'receive',
      channel: { $ref: '#/channels/ws' },
      messages: [ref('subscribed', 'ws'), ref('unsubscribed', 'ws'), ref('pong', 'ws'), ref('error', 'ws')],
    },
    receiveEvents: {
      action: 'receive',
      channel: { $ref: '#/channels/ws' },
      messages: [ref('chatEvent', 'ws'), ref('notificationEvent', 'ws')],
    },
  },
  components: {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'An app token or an admin JWT in the Authorization header of the upgrade request',
      },
      tokenQuery: {
        type: 'httpApiKey',
        name: 'token',
        in: 'query',
        description: 'The same token as ?token= (browsers cannot set headers on a websocket)',
      },
    },
  },
} as const;
