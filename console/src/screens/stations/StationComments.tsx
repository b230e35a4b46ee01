import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { client, unwrap, type Ok } from '../../api/client';
import { fmt, label, t } from '../../i18n';
import { ConfirmPanel, useConfirmedAction } from '../../ui/ConfirmPanel';
import { QueryView } from '../../ui/states';

const s = t.stations;
type Comment = Ok<'/admin/stations/{stationId}/comments', 'get'>['items'][number];

const authorOf = (c: Comment) => `${c.author.name ?? `#${c.author.id}`} (${label(s.role, c.author.role)})`;

/** The station's comment wall, newest first; a comment is removed after a confirmation naming its author. */
export const StationComments = ({ stationId }: { stationId: number }) => {
  const queryClient = useQueryClient();
  const { asked, ask, cancel, act, outcome } = useConfirmedAction<Comment>();
  const wall = useInfiniteQuery({
    queryKey: ['station-comments', stationId],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET('/admin/stations/{stationId}/comments', {
          params: { path: { stationId }, query: { limit: 25, cursor: pageParam } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more ? (last.next_cursor ?? undefined) : undefined),
  });
  const moderate = (c: Comment) =>
    act(async () => {
      await unwrap(
        client.DELETE('/admin/stations/{stationId}/comments/{commentId}', {
          params: { path: { stationId, commentId: c.id } },
        }),
      );
      await queryClient.invalidateQueries({ queryKey: ['station-comments', stationId] });
      return s.moderated;
    });
  return (
    <section className="stack" aria-labelledby="station-comments">
      <h2 id="station-comments">{s.comments}</h2>
      {asked && (
        <ConfirmPanel
          title={s.moderate}
          message={s.moderateConfirm(authorOf(asked))}
          onCancel={cancel}
          onConfirm={() => void moderate(asked)}
        />
      )}
      {outcome}
      <QueryView query={wall}>
        {(data) => (
          <>
            <div className="table-wrap" tabIndex={0} role="region" aria-label={s.comments}>
              <table>
                <caption className="sr-only">{s.comments}</caption>
                <thead>
                  <tr>
                    <th scope="col">{s.createdAt}</th>
                    <th scope="col">{s.author}</th>
                    <th scope="col">{s.content}</th>
                    <th scope="col">{t.common.actions}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.pages[0].items.length === 0 && (
                    <tr>
                      <td colSpan={4} className="muted">
                        {t.common.empty}
                      </td>
                    </tr>
                  )}
                  {data.pages
                    .flatMap((p) => p.items)
                    .map((c) => (
                      <tr key={c.id}>
                        <td>{fmt.dateTime(c.created_at)}</td>
                        <td>{authorOf(c)}</td>
                        <td>{c.content}</td>
                        <td>
                          <button type="button" onClick={() => ask(c)} aria-label={`${s.moderate}: ${authorOf(c)}`}>
                            {s.moderate}
                          </button>
                        </td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </div>
            {wall.hasNextPage && (
              <button type="button" onClick={() => void wall.fetchNextPage()}>
                {t.common.more}
              </button>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
};
