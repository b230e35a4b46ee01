import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditStream } from '../../../domain/credit/events.js';
import { ANCHOR_CATEGORY, anchorStream } from '../../../domain/audit/events.js';
import { ManualClock } from '../../../infra/clock.js';
import { verifyExport } from '../../../infra/audit/exportFile.js';
import { creditViewsProjector } from '../../../projections/credit/creditViews.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { dailyAnchorJob } from '../../../commands/audit/anchors.js';
import { walletStream } from '../../../domain/wallet/events.js';
import { hashOf } from '../../../infra/audit/chain.js';
import { readStoredStream } from '../../../infra/eventStore/postgresAudit.js';
import {
  signInAdmin,
  signInClient,
  signInDriver,
  type SignedInAdmin,
  type SignedInUser,
} from '../../../tests/support/actors.js';
import {
  expectNewEvents,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../../tests/support/apiSpecification.js';
import { call, confirmedOrder } from '../../../tests/support/orderFlows.js';

/** The offline verifier as an auditor runs it: the CLI on an export written to a file. */
const cli = mkdtempSync(join(tmpdir(), 'audit-verify-'));
const verifyWithCli = async (text: string, ...args: string[]) => {
  const file = join(cli, `export-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, text);
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'app/cli/auditVerify.ts', file, ...args]).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
};

/**
 * The auditor's proof (issue #33): a money stream's export verifies offline, names the first event that does not
 * match when the stored history was changed (data, a deletion, a reordering, a stream from another backup), and
 * anchors commit to every stream's head.
 */
describe('audit: hash chains, exports and anchors', () => {
  let t: ApiUnderTest;
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  beforeAll(async () => {
    // Anchors on demand without their interval here; the interval has its own test below.
    t = await startApiUnderTest({
      clock: new ManualClock(),
      env: { OFFICIAL_RATE_VES: '36.5', AUDIT_ANCHOR_INTERVAL_SECONDS: '0' },
    });
    api = call(t);
    root = await signInAdmin(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** A credit adjustment by the super admin: its CreditAdjusted is the credit stream's next link. */
  const adjust = (client: SignedInUser, amount: number, reason: string) =>
    t
      .given()
      .when((api) =>
        api.post(`/admin/customers/${client.user.id}/credit/adjust`, root.token, {
          type: 'credit',
          scope: 'ANY',
          amount,
          reason,
        }),
      )
      .then(
        expectResponse(200),
        expectNewEvents(creditStream(client.user.id), [
          { type: 'CreditAdjusted', data: { scope: 'ANY', amountCents: amount * 100, reason } },
        ]),
      );
  /** A client whose credit stream holds `n` adjustments. */
  const creditedClient = async (n = 3): Promise<SignedInUser> => {
    const client = await signInClient(t);
    for (let i = 1; i <= n; i++) expect((await adjust(client, i, `Compensación número ${i}`)).status).toBe(200);
    return client;
  };
  /** An anchor taken on demand: AuditAnchorRecorded on a stream of its own, over every money stream's head. */
  const anchorNow = (...streams: string[]) =>
    t
      .given()
      .when(() => api.post('/admin/audit/anchors', root.token))
      .then(
        expectResponse(201, { body: { kind: 'ON_DEMAND' } }),
        expectNewEvents(
          (r) => anchorStream(r.body.anchor_id),
          [
            {
              type: 'AuditAnchorRecorded',
              data: {
                kind: 'ON_DEMAND',
                heads: expect.arrayContaining(streams.map((stream) => expect.objectContaining({ stream }))),
              },
            },
          ],
        ),
      );
  const exportOf = async (stream: string, query = ''): Promise<string> => {
    const r = await t.request('GET', `/api/v1/admin/audit/streams/${stream}/export${query}`, { token: root.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    return r.body as string;
  };
  const sql = (text: string, params: unknown[]) => t.service.ctx.pool.query(text, params);

  it('exports a credit stream whose chain verifies, then anchors it; the offline verifier agrees', async () => {
    const client = await creditedClient();
    const stream = creditStream(client.user.id);
    const before = verifyExport(await exportOf(stream));
    expect(before).toMatchObject({ stream, events: 3, problem: null, anchor: null });

    const anchored = await anchorNow(stream);
    const { anchor_id: anchorId, root: rootHash } = anchored.body as { anchor_id: string; root: string };
    const [recorded] = await t.service.ctx.store.readStream(`${ANCHOR_CATEGORY}-${anchorId}`);
    expect(recorded.type).toBe('AuditAnchorRecorded');
    expect((recorded.data as { heads: { stream: string }[] }).heads.map((h) => h.stream)).toContain(stream);

    const text = await exportOf(stream);
    expect(verifyExport(text, rootHash)).toMatchObject({ problem: null, anchor: { anchorId, position: 2 } });
    const ok = await verifyWithCli(text, '--root', rootHash);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`OK ${stream}: 3 events`);
    expect((await verifyWithCli(text, '--root', 'f'.repeat(64))).code).toBe(1);

    const listed = await api.get('/admin/audit/anchors', root.token);
    expect(listed.body.anchors[0]).toMatchObject({ anchor_id: anchorId, root: rootHash });
    const one = await api.get(`/admin/audit/anchors/${anchorId}`, root.token);
    expect(one.body.heads).toContainEqual(expect.objectContaining({ stream, position: 2 }));
  });

  it('checks every stream name and the caller: 404 for what is no money stream, 403 for a plain admin', async () => {
    const client = await creditedClient(1);
    // The document's pattern refuses exactly the names that cannot exist, and admits those that can.
    const doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    const [param] = doc.paths['/admin/audit/streams/{stream}/export'].get.parameters;
    const named = (stream: string) => new RegExp(param.schema.pattern).test(decodeURIComponent(stream));
    for (const stream of [creditStream(client.user.id), 'receipt-12', `receipt-${crypto.randomUUID()}`])
      expect(named(stream), stream).toBe(true);
    for (const stream of ['order-1', 'credit-abc', 'credit-0', 'credit-99999999', 'wallet-1%20OR%201=1', 'receipt-x']) {
      expect(named(stream), stream).toBe(stream === 'credit-99999999'); // a name that could exist, but does not
      await refused(t, () => api.get(`/admin/audit/streams/${stream}/export`, root.token), 404, 'StreamNotFound');
    }
    await refused(t, () => api.get('/admin/audit/anchors/no-such-anchor', root.token), 404, 'AnchorNotFound');
    const plain = await signInAdmin(t, { superAdmin: false });
    for (const path of [`/admin/audit/streams/${creditStream(client.user.id)}/export`, '/admin/audit/anchors'])
      await refused(t, () => api.get(path, plain.token), 403, 'Forbidden');
  });

  it("scopes the audit routes by the record's city, and the anchor's detail by its streams", async () => {
    const VALENCIA = 3;
    // A client of Caracas (an order there), and a Caracas driver whose wallet holds an adjustment.
    const f = await confirmedOrder(t);
    expect((await adjust(f.client, 2, 'Compensación por la espera')).status).toBe(200);
    const driver = await signInDriver(t, { cityId: 1 });
    const wallet = await api.post(`/admin/drivers/${driver.driverId}/wallet/adjustments`, root.token, {
      direction: 'CREDIT',
      amount: 3,
      reason: 'Saldo de prueba para auditoría',
    });
    expect(wallet.status).toBe(201);
    const streams = [creditStream(f.client.user.id), walletStream(driver.driverId)];
    const anchored = await anchorNow(...streams);

    const elsewhere = await signInAdmin(t, { superAdmin: true, cityIds: [VALENCIA], allCities: false });
    const local = await signInAdmin(t, { superAdmin: true, cityIds: [1], allCities: false });
    const paths = (stream: string) => [`/admin/audit/streams/${stream}/export`, `/admin/audit/streams/${stream}/chain`];
    for (const path of streams.flatMap(paths)) {
      await refused(t, () => api.get(path, elsewhere.token), 404, 'StreamNotFound');
      expect((await api.get(path, root.token)).status, path).toBe(200);
    }
    // A customer's cities come from the reports' read model, which only a started service keeps
    // (tests/api/customers.e2e.test.ts); the wallet's from the driver's profile.
    for (const path of paths(walletStream(driver.driverId)))
      expect((await api.get(path, local.token)).status, path).toBe(200);

    const detail = (token: string) => api.get(`/admin/audit/anchors/${anchored.body.anchor_id}`, token);
    const streamsOf = (r: { body: { heads: { stream: string }[] } }) => r.body.heads.map((h) => h.stream);
    expect(streamsOf(await detail(root.token))).toEqual(expect.arrayContaining(streams));
    expect(streamsOf(await detail(local.token))).toContain(walletStream(driver.driverId));
    const seenElsewhere = streamsOf(await detail(elsewhere.token));
    for (const stream of streams) expect(seenElsewhere).not.toContain(stream);
  });

  it('lists anchors as summaries, each naming the anchor it extends', async () => {
    const first = (await anchorNow()).body as { anchor_id: string; root: string };
    const second = (await anchorNow()).body as { anchor_id: string; previous_anchor_id: string; previous_root: string };
    expect(second).toMatchObject({ previous_anchor_id: first.anchor_id, previous_root: first.root });
    const listed = await api.get('/admin/audit/anchors?limit=2', root.token);
    expect(listed.body.anchors).toEqual([
      expect.objectContaining({ anchor_id: second.anchor_id, previous_anchor_id: first.anchor_id }),
      expect.objectContaining({ anchor_id: first.anchor_id }),
    ]);
    for (const a of listed.body.anchors) expect(a).not.toHaveProperty('heads');
  });

  /** Each tamper on its own client's stream; the verifier, the CLI and the chain status name the same break. */
  const expectBreak = async (stream: string, kind: string, position: number) => {
    const text = await exportOf(stream);
    expect(verifyExport(text).problem).toMatchObject({ kind, position });
    const cliRun = await verifyWithCli(text);
    expect(cliRun.code).toBe(1);
    expect(cliRun.out).toContain(`BROKEN ${stream} at revision ${position}`);
    const status = await api.get(`/admin/audit/streams/${stream}/chain`, root.token);
    expect(status.body.chain).toMatchObject({ verified: false, problem: { kind, position } });
  };

  it('names the event whose stored data was changed', async () => {
    const stream = creditStream((await creditedClient()).user.id);
    await sql(
      `UPDATE events SET data = jsonb_set(data, '{reason}', '"otra cosa"') WHERE stream_id = $1 AND stream_position = 1`,
      [stream],
    );
    await expectBreak(stream, 'hash', 1);
  });

  it('names the place of a deleted event', async () => {
    const stream = creditStream((await creditedClient()).user.id);
    await sql(`DELETE FROM events WHERE stream_id = $1 AND stream_position = 1`, [stream]);
    await expectBreak(stream, 'position', 2);
  });

  it('names two events swapped in order', async () => {
    const stream = creditStream((await creditedClient()).user.id);
    // Through a free revision: the (stream, revision) key is checked row by row.
    for (const [from, to] of [
      [0, -1],
      [1, 0],
      [-1, 1],
    ])
      await sql(`UPDATE events SET stream_position = $3 WHERE stream_id = $1 AND stream_position = $2`, [
        stream,
        from,
        to,
      ]);
    await expectBreak(stream, 'prevHash', 0);
  });

  it("names a stream restored from another backup: another client's history, or its own before the anchor", async () => {
    const [a, b] = [await creditedClient(), await creditedClient()];
    const [sa, sb] = [creditStream(a.user.id), creditStream(b.user.id)];
    // Client b's events put in place of client a's: each chain is whole, but hashed for its own stream.
    await sql(`DELETE FROM events WHERE stream_id = $1`, [sa]);
    await sql(`UPDATE events SET stream_id = $1 WHERE stream_id = $2`, [sa, sb]);
    await expectBreak(sa, 'hash', 0);

    // A backup of c from before its last anchored event: the chain verifies, the anchor does not.
    const c = await creditedClient();
    const sc = creditStream(c.user.id);
    const backup = await exportOf(sc);
    await adjust(c, 9, 'Después del respaldo');
    expect((await anchorNow(sc)).status).toBe(201);
    await sql(`DELETE FROM events WHERE stream_id = $1 AND stream_position = 3`, [sc]);
    const restored = await exportOf(sc);
    expect(restored.split('\n').filter((l) => l.includes('"kind":"event"'))).toEqual(
      backup.split('\n').filter((l) => l.includes('"kind":"event"')),
    );
    expect(verifyExport(restored).problem).toMatchObject({ kind: 'anchoredEventMissing', position: 3 });
    const status = await api.get(`/admin/audit/streams/${sc}/chain`, root.token);
    expect(status.body.chain.verified).toBe(false);
    expect(status.body.anchor).toMatchObject({ position: 3, verified: false });
  });

  it('says whether the chain verifies up to an instant; rebuilding read models changes no hash', async () => {
    const client = await creditedClient(2);
    const stream = creditStream(client.user.id);
    const good = await api.get(`/admin/audit/streams/${stream}/chain?as_of=${new Date().toISOString()}`, root.token);
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ chain: { verified: true, events: 2 }, as_of: { verified: true, events: 2 } });

    const before = await exportOf(stream);
    const { db, store } = t.service.ctx;
    await rebuildProjection({ db, store, inline: true }, creditViewsProjector);
    const after = await exportOf(stream);
    const events = (text: string) => text.split('\n').filter((l) => l.includes('"kind":"event"'));
    expect(events(after)).toEqual(events(before));

    // Changed after the instant shown: the replay up to that instant still verifies, the stream as a whole does not.
    const [, first] = before.split('\n').map((l) => (l ? (JSON.parse(l) as { recordedAt?: string }) : {}));
    await sql(
      `UPDATE events SET data = jsonb_set(data, '{reason}', '"otra"') WHERE stream_id = $1 AND stream_position = 1`,
      [stream],
    );
    const asOfFirst = await api.get(`/admin/audit/streams/${stream}/chain?as_of=${first.recordedAt}`, root.token);
    expect(asOfFirst.body.chain).toMatchObject({ verified: false, problem: { position: 1 } });
    expect(asOfFirst.body.as_of.verified).toBe(asOfFirst.body.as_of.events < 2);

    await refused(
      t,
      () => api.get(`/admin/audit/streams/${stream}/chain?as_of=not-a-date`, root.token),
      422,
      'ValidationError',
    );
  });
});

/**
 * A rewrite whose hashes were recomputed by the chain's own rules (issue #41): the next anchor is refused, and
 * the root published before names the rewritten revision. On a database of its own: once a history is
 * rewritten, every later anchor there is refused, as it must be.
 */
describe('audit: an anchor never blesses a rewritten history', () => {
  let t: ApiUnderTest;
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock(), env: { AUDIT_ANCHOR_INTERVAL_SECONDS: '0' } });
    api = call(t);
    root = await signInAdmin(t);
  });
  afterAll(async () => {
    await t?.stop();
  });
  const sql = (text: string, params: unknown[]) => t.service.ctx.pool.query(text, params);
  const exportOf = async (stream: string, query = ''): Promise<string> => {
    const r = await t.request('GET', `/api/v1/admin/audit/streams/${stream}/export${query}`, { token: root.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as string;
  };
  const anchorNow = async () => {
    const r = await api.post('/admin/audit/anchors', root.token);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as { anchor_id: string; root: string };
  };

  it('refuses an anchor over a rewritten history, and an earlier root still names where the rewrite lies', async () => {
    const driver = await signInDriver(t, { cityId: 1 });
    const stream = walletStream(driver.driverId);
    const credit = async (amount: number) => {
      const r = await api.post(`/admin/drivers/${driver.driverId}/wallet/adjustments`, root.token, {
        direction: 'CREDIT',
        amount,
        reason: 'Saldo de prueba para auditoría',
      });
      expect(r.status).toBe(201);
      return (await readStoredStream(t.service.ctx.pool, stream)).length - 1;
    };
    // The first adjustment opens the wallet (revision 0) and books itself (1): the first anchor holds revision 1;
    // the second anchor, the one published last, the head after a second entry.
    expect(await credit(4)).toBe(1);
    const first = await anchorNow();
    const head = await credit(5);
    const published = await anchorNow();

    // As the database's owner: revision 0 rewritten, then every hash of the stream recomputed by the chain's rules.
    await sql(
      `UPDATE events SET data = jsonb_set(data, '{amountCents}', '400000') WHERE stream_id = $1 AND stream_position = 0`,
      [stream],
    );
    let prev: string | null = null;
    for (const e of await readStoredStream(t.service.ctx.pool, stream)) {
      const { hash: _h, prevHash: _p, ...metadata } = e.metadata;
      const chained = { stream, position: e.streamPosition, eventId: e.eventId, type: e.type, data: e.data, metadata };
      const hash = hashOf(chained, prev);
      await sql(`UPDATE events SET metadata = $3::jsonb WHERE stream_id = $1 AND stream_position = $2`, [
        stream,
        e.streamPosition,
        JSON.stringify({ ...metadata, prevHash: prev, hash }),
      ]);
      prev = hash;
    }
    const rewritten = await exportOf(stream);
    expect(
      verifyExport(
        rewritten
          .split('\n')
          .filter((l) => !l.includes('"kind":"anchor"'))
          .join('\n'),
      ).problem,
    ).toBeNull();

    const retaken = await api.post('/admin/audit/anchors', root.token);
    expect([retaken.status, retaken.body.error]).toEqual([409, 'Conflict']);
    expect(retaken.body).toMatchObject({
      previous_anchor_id: published.anchor_id,
      problems: expect.arrayContaining([{ stream, position: head, kind: 'anchoredHashDiffers' }]),
    });
    // The daily job is refused alike, and records its refusal once for the day.
    const day = dailyAnchorJob(t.service.ctx, 1000);
    await day.run(new Date('2026-12-01T16:00:00Z'));
    await day.run(new Date('2026-12-01T16:00:00Z'));
    expect((await t.service.ctx.store.readStream(anchorStream('2026-12-01'))).map((e) => e.type)).toEqual([
      'AuditAnchorRefused',
    ]);
    // Loud: the refusals are counted where an operator's alert looks (the on-demand one and the day's).
    const refusals = await t.service.ctx.metrics.anchorRefusals.get();
    expect(refusals.values[0]?.value).toBe(2);
    const listed = await api.get('/admin/audit/anchors?limit=1', root.token);
    expect(listed.body.anchors[0].anchor_id).toBe(published.anchor_id);

    const status = await api.get(`/admin/audit/streams/${stream}/chain`, root.token);
    expect(status.body.chain).toMatchObject({
      verified: false,
      problem: { kind: 'anchoredHashDiffers', position: head },
    });
    expect(status.body.anchor).toMatchObject({ anchor_id: published.anchor_id, verified: false });
    expect(status.body.anchor_refused).toMatchObject({
      anchor_id: '2026-12-01',
      previous_anchor_id: published.anchor_id,
      problem: { kind: 'anchoredHashDiffers', position: head },
    });

    // Checked against a root published before the rewrite, the export names where the rewrite lies: at or before
    // the revision that root holds (anchors hold heads, so that is as near as they can tell).
    const text = await exportOf(stream, `?root=${first.root}`);
    expect(verifyExport(text, first.root).problem).toMatchObject({
      kind: 'anchoredHashDiffers',
      position: 1,
      message: expect.stringContaining('a revision from 0 to 1 was rewritten'),
    });
    const cliRun = await verifyWithCli(text, '--root', first.root);
    expect(cliRun.code).toBe(1);
    expect(cliRun.out).toContain(`BROKEN ${stream} at revision 1`);
    expect(cliRun.out).toContain('a revision from 0 to 1 was rewritten');
  });
});

describe('audit: anchors on demand, at most one per interval', () => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApiUnderTest({ clock: new ManualClock(), env: { AUDIT_ANCHOR_INTERVAL_SECONDS: '3600' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 429 Cooldown with Retry-After to a second anchor within the interval, whoever asks', async () => {
    const api = call(t);
    const [one, other] = [
      await signInAdmin(t),
      await signInAdmin(t, { superAdmin: true, allCities: true, cityIds: [1] }),
    ];
    expect((await api.post('/admin/audit/anchors', one.token)).status).toBe(201);
    for (const admin of [one, other]) {
      const again = await refused(t, () => api.post('/admin/audit/anchors', admin.token), 429, 'Cooldown');
      expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(3500);
    }
  });
});
