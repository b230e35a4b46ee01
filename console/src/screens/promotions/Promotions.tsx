import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, Route, Switch, useLocation, useParams } from 'wouter';
import { client, unwrap, type Ok, type QueryOf } from '../../api/client';
import type { components } from '../../api/schema';
import { fmt, label, t } from '../../i18n';
import { ConfirmPanel, useConfirmedAction } from '../../ui/ConfirmPanel';
import { DataTable } from '../../ui/DataTable';
import { Select } from '../../ui/forms';
import { Picker } from '../../ui/Picker';
import { QueryView } from '../../ui/states';
import { PromotionForm, type FullBody } from './PromotionForm';

const p = t.promotions;
type Promotion = components['schemas']['Promotion'];
type Filters = QueryOf<'/admin/promotions'>;
type Grant = Ok<'/admin/promotions/{promotionId}/grants', 'get'>['items'][number];

/** Promotion campaigns (super admins): the list with filters, creation, and each campaign with its grants. */
export default function Promotions() {
  return (
    <Switch>
      <Route path="/" component={PromotionList} />
      <Route path="/new" component={NewPromotion} />
      <Route path="/:promotionId" component={PromotionDetail} />
    </Switch>
  );
}

/** City names by id, for showing a campaign's city (null: platform-wide). */
const useCityName = () => {
  const cities = useQuery({
    queryKey: ['cities'],
    staleTime: 60_000,
    queryFn: () => unwrap(client.GET('/cities')),
  });
  return (id: number | null) =>
    id === null ? p.allCities : (cities.data?.cities.find((c) => c.id === id)?.name ?? `#${id}`);
};

/** A window bound: a date set as a calendar day (midnight UTC) reads as that day, without a time. */
const bound = (iso: string | null) =>
  iso === null ? p.openEnded : /T00:00:00(\.000)?Z$/.test(iso) ? fmt.date(iso) : fmt.dateTime(iso);

const PromotionList = () => {
  const [filters, setFilters] = useState<Filters>({});
  const cityName = useCityName();
  const list = useQuery({
    queryKey: ['promotions', filters],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/promotions', { params: { query: filters } })),
  });
  const columns = useMemo<ColumnDef<Promotion, unknown>[]>(
    () => [
      { id: 'name', header: p.name, cell: ({ row }) => <Link href={`/${row.original.id}`}>{row.original.name}</Link> },
      { id: 'audience', header: p.audienceLabel, cell: ({ row }) => label(p.audience, row.original.audience) },
      { id: 'credit_scope', header: p.scopeLabel, cell: ({ row }) => label(p.scope, row.original.credit_scope) },
      { id: 'milestone_orders', header: p.milestone, accessorKey: 'milestone_orders' },
      { id: 'amount_usd', header: p.perGrant, cell: ({ row }) => fmt.usd(row.original.amount_usd) },
      { id: 'city_id', header: p.city, cell: ({ row }) => cityName(row.original.city_id) },
      { id: 'starts_at', header: p.startsAt, cell: ({ row }) => bound(row.original.starts_at) },
      { id: 'ends_at', header: p.endsAt, cell: ({ row }) => bound(row.original.ends_at) },
      {
        id: 'grants_count',
        header: p.grantsCount,
        cell: ({ row }) => `${row.original.grants_count} / ${row.original.max_grants ?? p.uncapped.toLowerCase()}`,
      },
      { id: 'granted_amount_usd', header: p.granted, cell: ({ row }) => fmt.usd(row.original.granted_amount_usd) },
      { id: 'active', header: p.active, cell: ({ row }) => fmt.bool(row.original.active) },
      { id: 'is_running', header: p.running, cell: ({ row }) => fmt.bool(row.original.is_running) },
    ],
    [cityName],
  );
  const onFilter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const audience = String(f.get('audience') ?? '');
    const active = String(f.get('active') ?? '');
    const city = String(f.get('city_id') ?? '');
    setFilters({
      audience: audience === 'CLIENT' || audience === 'DRIVER' ? audience : undefined,
      active: active === 'true' || active === 'false' ? active : undefined,
      city_id: city ? Number(city) : undefined,
    });
  };
  return (
    <section className="stack">
      <h1>{p.title}</h1>
      <div className="buttons">
        <Link href="/new">{p.new}</Link>
      </div>
      <form className="row" onSubmit={onFilter} role="search" aria-label={t.common.filter}>
        <Select label={p.audienceLabel} name="audience" options={[['', t.common.all], ...Object.entries(p.audience)]} />
        <Select
          label={p.filterActive}
          name="active"
          options={[
            ['', t.common.all],
            ['true', t.common.yes],
            ['false', t.common.no],
          ]}
        />
        <Picker kind="city" name="city_id" label={p.city} />
        <button type="submit" className="primary">
          {t.common.filter}
        </button>
      </form>
      <QueryView query={list}>
        {(data) => <DataTable caption={p.title} columns={columns} rows={data.items} rowKey={(r) => String(r.id)} />}
      </QueryView>
    </section>
  );
};

const NewPromotion = () => {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  return (
    <section className="stack">
      <h1>{p.new}</h1>
      <PromotionForm
        title={p.new}
        onSave={async (body) => {
          const { promotion } = await unwrap(
            // A new campaign's review is always the whole body (only an edit sends a part).
            client.POST('/admin/promotions', { body: body as FullBody }),
          );
          await queryClient.invalidateQueries({ queryKey: ['promotions'] });
          navigate(`/${promotion.id}`);
          return p.created;
        }}
      />
    </section>
  );
};

const PromotionDetail = () => {
  const { promotionId } = useParams<{ promotionId: string }>();
  const id = Number(promotionId);
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const cityName = useCityName();
  const { asked, ask, cancel, act, outcome } = useConfirmedAction<'toggle' | 'delete'>();
  const detail = useQuery({
    queryKey: ['promotion', id],
    queryFn: () => unwrap(client.GET('/admin/promotions/{promotionId}', { params: { path: { promotionId: id } } })),
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['promotion', id] });
    await queryClient.invalidateQueries({ queryKey: ['promotions'] });
  };
  return (
    <section className="stack">
      <QueryView query={detail}>
        {({ promotion: pr }) => (
          <>
            <h1>{pr.name}</h1>
            <dl className="kv panel">
              <dt>{p.active}</dt>
              <dd>{fmt.bool(pr.active)}</dd>
              <dt>{p.running}</dt>
              <dd>{fmt.bool(pr.is_running)}</dd>
              <dt>{p.audienceLabel}</dt>
              <dd>{label(p.audience, pr.audience)}</dd>
              <dt>{p.perGrant}</dt>
              <dd>{fmt.usd(pr.amount_usd)}</dd>
              <dt>{p.city}</dt>
              <dd>{cityName(pr.city_id)}</dd>
              <dt>{p.grantsCount}</dt>
              <dd>
                {pr.grants_count} / {pr.max_grants ?? p.uncapped.toLowerCase()}
              </dd>
              <dt>{p.granted}</dt>
              <dd>{fmt.usd(pr.granted_amount_usd)}</dd>
              <dt>{p.createdAt}</dt>
              <dd>{fmt.dateTime(pr.created_at)}</dd>
            </dl>
            {asked === 'toggle' ? (
              <ConfirmPanel
                title={pr.active ? p.deactivate : p.activate}
                message={pr.active ? p.deactivateConfirm(pr.name) : p.activateConfirm(pr.name, fmt.usd(pr.amount_usd))}
                onCancel={cancel}
                onConfirm={() =>
                  void act(async () => {
                    await unwrap(
                      client.PATCH('/admin/promotions/{promotionId}', {
                        params: { path: { promotionId: id } },
                        body: { active: !pr.active },
                      }),
                    );
                    await refresh();
                    return pr.active ? p.deactivated : p.activated;
                  })
                }
              />
            ) : asked === 'delete' ? (
              <ConfirmPanel
                title={p.remove}
                message={p.removeConfirm(pr.name)}
                onCancel={cancel}
                onConfirm={() =>
                  void act(async () => {
                    await unwrap(
                      client.DELETE('/admin/promotions/{promotionId}', { params: { path: { promotionId: id } } }),
                    );
                    await queryClient.invalidateQueries({ queryKey: ['promotions'] });
                    navigate('/');
                    return p.removed;
                  })
                }
              />
            ) : (
              <div className="buttons">
                <button type="button" onClick={() => ask('toggle')}>
                  {pr.active ? p.deactivate : p.activate}
                </button>
                {pr.grants_count === 0 && (
                  <button type="button" onClick={() => ask('delete')}>
                    {p.remove}
                  </button>
                )}
              </div>
            )}
            {outcome}
            <PromotionForm
              promotion={pr}
              title={p.edit}
              onSave={async (body) => {
                await unwrap(
                  client.PATCH('/admin/promotions/{promotionId}', { params: { path: { promotionId: id } }, body }),
                );
                await refresh();
                return p.saved;
              }}
            />
          </>
        )}
      </QueryView>
      <PromotionGrants promotionId={id} />
    </section>
  );
};

/** Who received the campaign, newest first, with the terms frozen at grant time. */
const PromotionGrants = ({ promotionId }: { promotionId: number }) => {
  const grants = useInfiniteQuery({
    queryKey: ['promotion-grants', promotionId],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET('/admin/promotions/{promotionId}/grants', {
          params: { path: { promotionId }, query: { limit: 25, cursor: pageParam } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more ? (last.next_cursor ?? undefined) : undefined),
  });
  const columns = useMemo<ColumnDef<Grant, unknown>[]>(
    () => [
      { id: 'created_at', header: p.createdAt, cell: ({ row }) => fmt.dateTime(row.original.created_at) },
      {
        id: 'user',
        header: p.recipient,
        cell: ({ row }) => row.original.user.name ?? `#${row.original.user.id}`,
      },
      { id: 'phone', header: p.phone, cell: ({ row }) => row.original.user.phone },
      { id: 'order', header: p.order, cell: ({ row }) => (row.original.order_id ? `#${row.original.order_id}` : '—') },
      { id: 'audience', header: p.audienceLabel, cell: ({ row }) => label(p.audience, row.original.audience) },
      { id: 'credit_scope', header: p.scopeLabel, cell: ({ row }) => label(p.scope, row.original.credit_scope) },
      { id: 'amount_usd', header: p.perGrant, cell: ({ row }) => fmt.usd(row.original.amount_usd) },
    ],
    [],
  );
  return (
    <section className="stack" aria-labelledby="promotion-grants">
      <h2 id="promotion-grants">{p.grants}</h2>
      <QueryView query={grants}>
        {(data) => (
          <>
            <DataTable
              caption={p.grants}
              columns={columns}
              rows={data.pages.flatMap((x) => x.items)}
              rowKey={(r) => String(r.id)}
            />
            {grants.hasNextPage && (
              <button type="button" onClick={() => void grants.fetchNextPage()}>
                {t.common.more}
              </button>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
};
