import { appendToStream } from '../../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { NewEvent } from '../../infra/eventStore/port.js';
import { call } from './orderFlows.js';
import {
  buildTestService,
  requestsTo,
  type ServiceOptions,
  type TestResponse,
  type TestService,
} from './testService.js';

/**
 * The api.int tier: HTTP in, events out. The real service as it is composed, on a test database of the embedded PostgreSQL (or
 * DATABASE_URL's PostgreSQL), serving its Express app on a free port, without the projection runner, the
 * scheduler or the websocket gateway: the read models a write's answer needs are applied inline in the
 * append's transaction (docs/decisions/0003-inline-and-async-read-models.md), so a route's rules are
 * seen without waiting for anything. What needs the runner, timers, notifications, reports or websockets
 * stays in tests/api.
 *
 * It is a TestService, so the actors and flows of tests/support sign in and set up through HTTP as in
 * tests/api; and it adds Emmett's given / when / then:
 *
 *   await api
 *     .given(existingStream(orderStream(7), [{ type: 'OrderCreated', data: … }]))
 *     .when((api) => api.post('/orders/7/cancel', token))
 *     .then(
 *       expectResponse(200, { body: { order: { status: 'CANCELLED' } } }),
 *       expectNewEvents(orderStream(7), [{ type: 'OrderCancelled' }]),
 *     );
 */

export interface PastStream {
  streamId: string;
  events: { type: string; data: unknown; metadata?: NewEvent['metadata'] }[];
}

/** Past events of a stream, as if earlier commands had written them. */
export const existingStream = (streamId: string, events: PastStream['events']): PastStream => ({ streamId, events });

interface Outcome {
  response: TestResponse;
  /** The events appended to a stream by the request, in order. */
  newEventsOf(streamId: string): Promise<{ type: string; data: unknown }[]>;
  /** Every event appended by the request (or concurrently with it), whatever the stream, in order. */
  allNewEvents(): Promise<{ streamId: string; type: string; data: unknown }[]>;
}

/** A stream named up front, or from the answer (a stream whose id the request minted). */
type StreamOf = string | ((response: TestResponse) => string);

export type Assertion = (outcome: Outcome) => void | Promise<void>;

/** The status, and a body and headers that contain these (toMatchObject). */
export const expectResponse =
  (status: number, options: { body?: unknown; headers?: Record<string, string> } = {}): Assertion =>
  ({ response }) => {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (options.body !== undefined) expect(response.body).toMatchObject(options.body as object);
    if (options.headers) expect(Object.fromEntries(response.headers)).toMatchObject(options.headers);
  };

/** An error answer: the status and the error's identifier (and details that contain these). */
export const expectError = (status: number, error: string, details?: Record<string, unknown>): Assertion =>
  expectResponse(status, { body: { error, ...(details ? { details } : {}) } });

/** Exactly these events (type, and data that contains the given data), appended by the request to the stream. */
export const expectNewEvents =
  (stream: StreamOf, expected: { type: string; data?: unknown }[]): Assertion =>
  async ({ response, newEventsOf }) => {
    const appended = await newEventsOf(typeof stream === 'string' ? stream : stream(response));
    expect(appended).toMatchObject(expected);
    expect(appended).toHaveLength(expected.length);
  };

/** Nothing appended to the stream (a refusal writes nothing). */
export const expectNoNewEvents = (stream: StreamOf): Assertion => expectNewEvents(stream, []);

/** Nothing appended to any stream (a refusal before any decision). */
export const expectNothingAppended: Assertion = async ({ allNewEvents }) => {
  expect(await allNewEvents()).toEqual([]);
};

/** Paths under /api/v1 (tests/support/orderFlows.ts). */
export type Requests = ReturnType<typeof call>;

/**
 * A race as one `when`: the requests go out together; `when` hands the harness the first answer, and every answer
 * is kept in `responses` for the assertions on statuses.
 */
export const race = (send: (api: Requests) => Promise<TestResponse>[]) => {
  const responses: TestResponse[] = [];
  return {
    responses,
    send: async (api: Requests) => {
      responses.push(...(await Promise.all(send(api))));
      return responses[0];
    },
  };
};

/** The request of a `when`. */
export type Send = (api: Requests) => Promise<TestResponse>;

export interface ApiUnderTest extends TestService {
  given(...streams: PastStream[]): {
    when(request: Send): {
      then(...assertions: Assertion[]): Promise<TestResponse>;
    };
  };
}

/** A refusal: its answer (the status, and the error's identifier when given), and nothing appended anywhere. */
export const refused = (api: ApiUnderTest, send: Send, status: number, error?: string): Promise<TestResponse> =>
  api
    .given()
    .when(send)
    .then(error ? expectError(status, error) : expectResponse(status), expectNothingAppended);

/**
 * The requests of an area kept as state, not as events (admin accounts, payment forms, stations, geocoding): each one
 * is a given / when / then whose `then` is that nothing was appended, whatever the answer; the test asserts the answer.
 * The service is named by a function because tests start it in a beforeAll.
 */
export const appendingNothing =
  (api: () => ApiUnderTest): TestService['request'] =>
  (method, path, options) =>
    api()
      .given()
      .when(() => api().request(method, path, options))
      .then(expectNothingAppended);

export const startApiUnderTest = async (
  options: Omit<ServiceOptions, 'roles' | 'shared'> = {},
): Promise<ApiUnderTest> => {
  const { service, drop } = await buildTestService(options);
  const { store } = service.ctx;
  const server = createServer(service.app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const request = requestsTo(baseUrl);

  const eventsSince = async (position: number, streamId: string) =>
    (await store.readStream(streamId))
      .filter((e) => e.globalPosition > position)
      .map((e) => ({ type: e.type, data: e.data }));

  const self: ApiUnderTest = {
    service,
    baseUrl,
    port,
    request,
    given: (...streams) => ({
      when: (send) => ({
        async then(...assertions) {
          for (const { streamId, events } of streams) {
            await appendToStream(
              store,
              streamId,
              events.map((e) => ({ eventId: randomUUID(), ...e })),
              { expectedRevision: 'any' },
            );
          }
          const before = await store.headPosition();
          const response = await send(call(self));
          const outcome: Outcome = {
            response,
            newEventsOf: (streamId) => eventsSince(before, streamId),
            allNewEvents: async () =>
              (await store.readAll(before, 1000)).map((e) => ({ streamId: e.streamId, type: e.type, data: e.data })),
          };
          for (const assertion of assertions) await assertion(outcome);
          return response;
        },
      }),
    }),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.stop();
      await drop?.();
    },
  };
  return self;
};
