import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'react';
import type { ReportAnswer } from './reports';
import { fmt, t } from '../../i18n';

// Only the parts drawn here: Chart.js tree-shakes the rest away.
Chart.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Legend,
  Tooltip,
);

const COLORS = ['#1f5f99', '#2e8540', '#b8371b', '#7a4fa3', '#8a6d00'];

const ChartCanvas = ({ label, config }: { label: string; config: ConstructorParameters<typeof Chart>[1] }) => {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const chart = new Chart(ref.current!, {
      ...config,
      options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options },
    });
    return () => chart.destroy();
  }, [config]);
  return (
    <figure className="chart">
      <figcaption>{label}</figcaption>
      <div className="chart-box">
        <canvas ref={ref} role="img" aria-label={`${label}. ${t.reports.chartAlt}`} />
      </div>
    </figure>
  );
};

const f = (key: string) => t.fields[key] ?? key;

/** The period comparison in three charts, one per unit: an axis never mixes dollars, counts and percentages. */
const COMPARED = [
  ['comparisonCounts', ['published', 'delivered']],
  ['comparisonUsd', ['gross_income_usd', 'commission_usd']],
  ['comparisonPct', ['conversion_pct']],
] as const;

/** The operational report's daily series, and this period against the previous one. */
export const OperationalCharts = ({ data }: { data: ReportAnswer }) => {
  const days = [...data.items].sort((a, b) => String(a.date).localeCompare(String(b.date)));
  const series = ['published', 'delivered', 'cancelled', 'expired'];
  const c = data.comparison;
  return (
    <div className="charts">
      <ChartCanvas
        label={t.reports.dailySeries}
        config={{
          type: 'line',
          data: {
            labels: days.map((d) => fmt.date(String(d.date))),
            datasets: series.map((k, i) => ({
              label: f(k),
              data: days.map((d) => Number(d[k] ?? 0)),
              borderColor: COLORS[i],
              backgroundColor: COLORS[i],
            })),
          },
        }}
      />
      {c &&
        COMPARED.map(([unit, keys]) => (
          <ChartCanvas
            key={unit}
            label={`${t.reports[unit]} · ${t.reports.comparison} (${fmt.date(c.previous_period.from)} – ${fmt.date(c.previous_period.to)})`}
            config={{
              type: 'bar',
              data: {
                labels: keys.map(f),
                datasets: [
                  {
                    label: t.reports.current,
                    data: keys.map((k) => Number(data.totals?.[k] ?? 0)),
                    backgroundColor: COLORS[0],
                  },
                  {
                    label: t.reports.previous,
                    data: keys.map((k) => Number(c.previous[k] ?? 0)),
                    backgroundColor: COLORS[3],
                  },
                ],
              },
            }}
          />
        ))}
    </div>
  );
};

/** The performance ranking of the latest period: ranked drivers by the ranking's measure. */
export const PerformanceChart = ({ data, rankBy }: { data: ReportAnswer; rankBy: string }) => {
  const periods = [...new Set(data.items.map((i) => String(i.period)))].sort();
  const last = periods.at(-1);
  const ranked = data.items
    .filter((i) => i.period === last && i.rank !== null)
    .sort((a, b) => Number(a.rank) - Number(b.rank))
    .slice(0, 15);
  return (
    <div className="charts">
      <ChartCanvas
        label={`${t.reports.ranking} ${last ?? ''} · ${f(rankBy)}`}
        config={{
          type: 'bar',
          data: {
            labels: ranked.map((i) => `${i.rank}. ${i.driver_name ?? i.driver_id}`),
            datasets: [
              { label: f(rankBy), data: ranked.map((i) => Number(i[rankBy] ?? 0)), backgroundColor: COLORS[1] },
            ],
          },
          options: { indexAxis: 'y' },
        }}
      />
    </div>
  );
};
