import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import type { ReactNode } from 'react';
import { t } from '../i18n';

export interface Sort {
  key: string;
  direction: 'asc' | 'desc';
}

/** A row's actions stay at the table's right edge however wide the row (styles.css, `.actions`). */
const stuck = (columnId: string) => (columnId === 'actions' ? 'actions' : undefined);

/**
 * A table over one server page: sorting and paging are the server's (manual), so the browser never
 * holds more than the page it shows. Sortable headers are buttons that say their state.
 */
export function DataTable<Row>({
  columns,
  rows,
  caption,
  sortable = [],
  sort,
  onSort,
  footer,
  rowKey,
}: {
  columns: ColumnDef<Row, unknown>[];
  rows: Row[];
  caption: string;
  sortable?: readonly string[];
  sort?: Sort;
  onSort?: (s: Sort) => void;
  footer?: ReactNode;
  rowKey?: (row: Row, index: number) => string;
}) {
  const sorting: SortingState = sort ? [{ id: sort.key, desc: sort.direction === 'desc' }] : [];
  const table = useReactTable({
    data: rows,
    columns,
    state: { sorting },
    manualSorting: true,
    manualPagination: true,
    getCoreRowModel: getCoreRowModel(),
    getRowId: rowKey,
  });
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption className="sr-only">{caption}</caption>
        <thead>
          {table.getHeaderGroups().map((g) => (
            <tr key={g.id}>
              {g.headers.map((h) => {
                const label = flexRender(h.column.columnDef.header, h.getContext());
                const canSort = onSort && sortable.includes(h.column.id);
                const active = sort?.key === h.column.id ? sort.direction : undefined;
                return (
                  <th
                    key={h.id}
                    className={stuck(h.column.id)}
                    scope="col"
                    aria-sort={active === 'asc' ? 'ascending' : active === 'desc' ? 'descending' : undefined}
                  >
                    {canSort ? (
                      <button
                        type="button"
                        className="sort"
                        onClick={() => onSort({ key: h.column.id, direction: active === 'desc' ? 'asc' : 'desc' })}
                      >
                        {label} <span aria-hidden="true">{active === 'asc' ? '▲' : active === 'desc' ? '▼' : '↕'}</span>
                      </button>
                    ) : (
                      label
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="muted">
                {t.common.empty}
              </td>
            </tr>
          ) : (
            table.getRowModel().rows.map((r) => (
              <tr key={r.id}>
                {r.getVisibleCells().map((c) => (
                  <td key={c.id} className={stuck(c.column.id)}>
                    {flexRender(c.column.columnDef.cell, c.getContext())}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
        {footer && <tfoot>{footer}</tfoot>}
      </table>
    </div>
  );
}

export interface PageMeta {
  total: number;
  per_page: number;
  current_page: number;
  last_page: number;
}

/** Page-numbered navigation of a server list. */
export const Pager = ({ meta, onPage }: { meta: PageMeta; onPage: (page: number) => void }) => (
  <nav className="pager" aria-label={t.common.page}>
    <button type="button" disabled={meta.current_page <= 1} onClick={() => onPage(meta.current_page - 1)}>
      {t.common.previous}
    </button>
    <span>
      {t.common.page} {meta.current_page} {t.common.of} {Math.max(1, meta.last_page)} · {t.common.total}: {meta.total}
    </span>
    <button type="button" disabled={meta.current_page >= meta.last_page} onClick={() => onPage(meta.current_page + 1)}>
      {t.common.next}
    </button>
  </nav>
);
