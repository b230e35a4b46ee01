import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'wouter';
import { client, unwrap } from '../../api/client';
import { fmt, label, t } from '../../i18n';
import { ConfirmPanel, useConfirmedAction } from '../../ui/ConfirmPanel';
import { QueryView } from '../../ui/states';
import { StationComments } from './StationComments';
import { StationForm } from './StationForm';
import { ReportsTable } from './StationReports';

const s = t.stations;

/**
 * One station: its data (editable), its status switch and deletion (each after a confirmation), the last
 * 30 days of reports (the whole history a link away) and the comment wall to moderate.
 */
export const StationDetail = () => {
  const { stationId } = useParams<{ stationId: string }>();
  const id = Number(stationId);
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const { asked, ask, cancel, act, outcome } = useConfirmedAction<'status' | 'delete'>();
  const detail = useQuery({
    queryKey: ['station', id],
    queryFn: () => unwrap(client.GET('/admin/stations/{stationId}', { params: { path: { stationId: id } } })),
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['station', id] });
    await queryClient.invalidateQueries({ queryKey: ['stations'] });
  };
  return (
    <section className="stack">
      <QueryView query={detail}>
        {({ station, reports, summary }) => {
          const to = station.estado === 'ACTIVA' ? 'INACTIVA' : 'ACTIVA';
          return (
            <>
              <h1>{station.name}</h1>
              <dl className="kv panel">
                <dt>{s.estadoLabel}</dt>
                <dd>{label(s.estado, station.estado)}</dd>
                <dt>{s.tipoLabel}</dt>
                <dd>{label(s.tipo, station.tipo)}</dd>
                <dt>{s.address}</dt>
                <dd>{station.address}</dd>
                <dt>{s.city}</dt>
                <dd>{station.city}</dd>
                <dt>{s.createdAt}</dt>
                <dd>{fmt.dateTime(station.created_at)}</dd>
                <dt>{s.updatedAt}</dt>
                <dd>{fmt.dateTime(station.updated_at)}</dd>
              </dl>
              {asked === 'status' ? (
                <ConfirmPanel
                  title={to === 'INACTIVA' ? s.deactivate : s.activate}
                  message={s.statusConfirm(station.name, label(s.estado, to))}
                  onCancel={cancel}
                  onConfirm={() =>
                    void act(async () => {
                      await unwrap(
                        client.PATCH('/admin/stations/{stationId}/status', {
                          params: { path: { stationId: id } },
                          body: { estado: to },
                        }),
                      );
                      await refresh();
                      return s.statusChanged(label(s.estado, to));
                    })
                  }
                />
              ) : asked === 'delete' ? (
                <ConfirmPanel
                  title={s.remove}
                  message={s.removeConfirm(station.name)}
                  onCancel={cancel}
                  onConfirm={() =>
                    void act(async () => {
                      await unwrap(
                        client.DELETE('/admin/stations/{stationId}', { params: { path: { stationId: id } } }),
                      );
                      await queryClient.invalidateQueries({ queryKey: ['stations'] });
                      navigate('/');
                      return s.removed;
                    })
                  }
                />
              ) : (
                <div className="buttons">
                  <button type="button" onClick={() => ask('status')}>
                    {to === 'INACTIVA' ? s.deactivate : s.activate}
                  </button>
                  <button type="button" onClick={() => ask('delete')}>
                    {s.remove}
                  </button>
                </div>
              )}
              {outcome}
              <StationForm
                station={station}
                title={s.edit}
                submitLabel={t.common.save}
                onSave={async (body) => {
                  await unwrap(
                    client.PATCH('/admin/stations/{stationId}', { params: { path: { stationId: id } }, body }),
                  );
                  await refresh();
                  return s.saved;
                }}
              />
              <h2>{s.summary}</h2>
              <dl className="totals">
                <div>
                  <dt>{s.totalReports}</dt>
                  <dd>{summary.total_reports_30d}</dd>
                </div>
                <div>
                  <dt>{s.avgWait}</dt>
                  <dd>{fmt.number(summary.avg_wait_minutes)}</dd>
                </div>
                {Object.entries(summary.color_breakdown).map(([color, n]) => (
                  <div key={color}>
                    <dt>{label(s.color, color)}</dt>
                    <dd>{n}</dd>
                  </div>
                ))}
              </dl>
              <ReportsTable caption={s.reports} reports={reports} />
              <Link href={`/${id}/reports`}>{s.historyLink}</Link>
            </>
          );
        }}
      </QueryView>
      <StationComments stationId={id} />
    </section>
  );
};
