import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, Route, Switch, useParams } from 'wouter';
import { client, unwrap } from '../../api/client';
import { session } from '../../api/session';
import { fmt, label, t } from '../../i18n';
import { applyFieldErrors, Field, Select } from '../../ui/forms';
import { ErrorView, QueryView } from '../../ui/states';

const s = t.support;

export default function Support() {
  return (
    <Switch>
      <Route path="/" component={Inbox} />
      <Route path="/rooms/:roomId" component={Room} />
    </Switch>
  );
}

const Inbox = () => {
  const [bucket, setBucket] = useState<'pool' | 'mine'>('pool');
  const [kind, setKind] = useState<'driver' | 'client' | undefined>();
  const inbox = useInfiniteQuery({
    queryKey: ['support-inbox', bucket, kind],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(client.GET('/admin/order-support', { params: { query: { bucket, kind, limit: 25, cursor: pageParam } } })),
    getNextPageParam: (last) => (last.has_more ? (last.next_cursor ?? undefined) : undefined),
    refetchInterval: 15_000,
  });
  return (
    <section>
      <h1>{s.title}</h1>
      <nav className="tabs" aria-label={s.title}>
        {(['pool', 'mine'] as const).map((b) => (
          <button
            key={b}
            type="button"
            aria-pressed={bucket === b}
            className={bucket === b ? 'primary' : undefined}
            onClick={() => setBucket(b)}
          >
            {b === 'pool' ? s.pool : s.mine}
          </button>
        ))}
      </nav>
      <div className="row">
        <Select
          label={s.kind}
          value={kind ?? ''}
          onChange={(e) => setKind((['driver', 'client'] as const).find((k) => k === e.currentTarget.value))}
          options={[
            ['', t.common.all],
            ['driver', s.kinds.driver],
            ['client', s.kinds.client],
          ]}
        />
      </div>
      <QueryView query={inbox}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          return (
            <>
              {items.length === 0 && <p className="muted">{t.common.empty}</p>}
              <ul className="cards stack" aria-label={s.title}>
                {items.map((i) => (
                  <li key={i.room_id}>
                    <Link href={`/rooms/${i.room_id}`}>
                      {s.order} #{i.order_id} · {s.kinds[i.kind]} ·{' '}
                      {i.state === 'pool' ? s.inPool : `${s.claimedBy} ${i.assigned_admin?.name ?? ''}`}
                      <span className="meta muted">
                        {' '}
                        —{' '}
                        {i.last_message
                          ? `${i.last_message.sender_name ?? i.last_message.sender_role}: ${i.last_message.content}`
                          : s.noMessages}
                      </span>
                    </Link>
                  </li>
                ))}
              </ul>
              {inbox.hasNextPage && (
                <button type="button" onClick={() => void inbox.fetchNextPage()}>
                  {t.common.more}
                </button>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
};

/**
 * Listens to a room's channel on the /ws websocket (the token in the query string: a browser cannot
 * set a header on a websocket) and calls `onMessage` for each message; says whether it is live.
 */
const useLiveChannel = (channel: string | undefined, onMessage: () => void) => {
  const [live, setLive] = useState(false);
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useEffect(() => {
    const token = session.token();
    if (!channel || !token) return;
    const url =
      `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}` + `/ws?token=${encodeURIComponent(token)}`;
    const ws = new WebSocket(url);
    ws.onopen = () => ws.send(JSON.stringify({ type: 'subscribe', channel }));
    ws.onmessage = (e) => {
      const frame = JSON.parse(String(e.data)) as { type: string; channel?: string };
      if (frame.type === 'subscribed' && frame.channel === channel) setLive(true);
      else if (frame.type === 'message' && frame.channel === channel) handler.current();
      else if (frame.type === 'error') setLive(false);
    };
    ws.onclose = () => setLive(false);
    return () => {
      setLive(false);
      ws.close();
    };
  }, [channel]);
  return live;
};

const Room = () => {
  const { roomId } = useParams<{ roomId: string }>();
  const id = Number(roomId);
  const queryClient = useQueryClient();
  const room = useQuery({
    queryKey: ['support-room', id],
    queryFn: () => unwrap(client.GET('/admin/chat-rooms/{roomId}', { params: { path: { roomId: id } } })),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['support-room', id] });
  const state = room.data?.status.state;
  const live = useLiveChannel(room.data ? `${room.data.channel}` : undefined, refresh);
  const claim = useMutation({
    mutationFn: () => unwrap(client.POST('/admin/chat-rooms/{roomId}/claim', { params: { path: { roomId: id } } })),
    onSuccess: refresh,
  });
  const release = useMutation({
    mutationFn: () => unwrap(client.POST('/admin/chat-rooms/{roomId}/release', { params: { path: { roomId: id } } })),
    onSuccess: refresh,
  });
  const { register, handleSubmit, reset, setError, formState } = useForm<{ content: string }>();
  const [sendError, setSendError] = useState<unknown>(null);
  const send = handleSubmit(async ({ content }) => {
    setSendError(null);
    try {
      await unwrap(
        client.POST('/admin/chat-rooms/{roomId}/messages', { params: { path: { roomId: id } }, body: { content } }),
      );
      reset();
      refresh();
    } catch (err) {
      if (!applyFieldErrors(err, setError, ['content'])) setSendError(err);
    }
  });
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    listRef.current?.scrollTo({ top: listRef.current.scrollHeight });
  }, [room.data?.messages.length]);
  return (
    <section>
      <h1>
        {s.conversation} #{id}
      </h1>
      <p>
        <Link href="/">{s.title}</Link>
      </p>
      <QueryView query={room}>
        {(data) => (
          <div className="stack">
            <p>
              {s.roomKinds[data.kind]} ·{' '}
              {data.status.state === 'pool' ? s.inPool : `${s.claimedBy} ${data.status.assigned_admin?.name ?? ''}`} ·{' '}
              <span className="badge" role="status">
                {live ? s.live : s.offline}
              </span>
            </p>
            <dl className="kv panel" aria-label={s.context}>
              <dt>{s.order}</dt>
              <dd>
                <Link href={`~/console/replay/order/${data.order_id}`}>#{data.order_id}</Link>
                {data.order && ` · ${label(t.enums.orderStatus, data.order.status)}`}
              </dd>
              <dt>{s.kinds.client}</dt>
              <dd>{data.order?.client ? `${data.order.client.name ?? '—'} · ${data.order.client.phone}` : '—'}</dd>
              <dt>{s.kinds.driver}</dt>
              <dd>
                {data.order?.driver
                  ? `${data.order.driver.name ?? '—'} · ${data.order.driver.phone} · ${s.plate} ${data.order.driver.plate ?? '—'}`
                  : s.noDriver}
              </dd>
            </dl>
            <div className="buttons">
              {state === 'pool' && (
                <button type="button" className="primary" onClick={() => claim.mutate()} disabled={claim.isPending}>
                  {s.claim}
                </button>
              )}
              {state === 'claimed' && (
                <button type="button" onClick={() => release.mutate()} disabled={release.isPending}>
                  {s.release}
                </button>
              )}
            </div>
            {claim.isError && <ErrorView error={claim.error} />}
            {release.isError && <ErrorView error={release.error} />}
            <ol className="chat" tabIndex={0} ref={listRef} aria-label={s.conversation} aria-live="polite">
              {data.messages.map((m) => (
                <li key={m.id} className={m.sender_role}>
                  <strong>{m.sender_name ?? m.sender_role}</strong>{' '}
                  <span className="muted">{fmt.dateTime(m.created_at)}</span>
                  <div>{m.content}</div>
                </li>
              ))}
            </ol>
            <form className="compose" onSubmit={send} noValidate>
              {state === 'pool' && <p className="muted">{s.sendClaims}</p>}
              <Field label={s.message} error={formState.errors.content?.message}>
                {(fieldId, describedBy) => (
                  <textarea
                    id={fieldId}
                    rows={3}
                    maxLength={500}
                    aria-invalid={formState.errors.content ? true : undefined}
                    aria-describedby={describedBy}
                    {...register('content', { required: t.validation.required })}
                  />
                )}
              </Field>
              <div className="buttons">
                <button type="submit" className="primary" disabled={formState.isSubmitting}>
                  {state === 'pool' ? s.claimAndSend : s.send}
                </button>
              </div>
            </form>
            {sendError !== null && <ErrorView error={sendError} />}
          </div>
        )}
      </QueryView>
    </section>
  );
};
