/** The traffic-light colours a driver reports, most to least favourable. */
export const REPORT_COLORS = ['GREEN', 'YELLOW', 'RED', 'CLOSED'] as const;
export type ReportColor = (typeof REPORT_COLORS)[number];

/** How many of a station's most recent reports its status and its public detail look at (docs/domain-rules.md). */
export const STATUS_REPORTS = 20;
/** A report's weight halves every this many minutes: a queue half an hour old says half as much. */
export const STATUS_HALF_LIFE_MINUTES = 30;

export interface RecentReport {
  color: ReportColor;
  waitMinutes: number | null;
  createdAt: Date;
}

export interface CurrentStatus {
  current_color: ReportColor;
  confidence: number;
  report_count: number;
  avg_wait_minutes: number | null;
  last_report_at: string;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The station's traffic light from its recent reports (newest first, already cut to the status window and to
 * STATUS_REPORTS). Each report weighs 0.5^(age / half-life). The colour is the one with the most weight (a tie
 * goes to the colour reported most recently). Confidence = agreement × evidence: agreement is the winning
 * colour's share of the weight, evidence 1 − 0.5^(total weight), so one fresh report gives 0.5, two agreeing
 * fresh reports 0.75, and old or contradicting reports less. avg_wait_minutes is the weighted mean of the
 * reported waits, in whole minutes. With no report in the window the last report ever made still names the
 * colour, with confidence 0; a station never reported has no status (null).
 */
export const currentStatus = (
  recent: RecentReport[],
  last: { color: ReportColor; at: Date } | null,
  now: Date,
): CurrentStatus | null => {
  if (!last) return null;
  if (recent.length === 0)
    return {
      current_color: last.color,
      confidence: 0,
      report_count: 0,
      avg_wait_minutes: null,
      last_report_at: last.at.toISOString(),
    };
  const weightOf = (r: RecentReport) =>
    0.5 ** (Math.max(0, now.getTime() - r.createdAt.getTime()) / 60_000 / STATUS_HALF_LIFE_MINUTES);
  const byColor = new Map<ReportColor, number>();
  let total = 0;
  let waitWeight = 0;
  let waitSum = 0;
  for (const r of recent) {
    const w = weightOf(r);
    byColor.set(r.color, (byColor.get(r.color) ?? 0) + w);
    total += w;
    if (r.waitMinutes !== null) {
      waitWeight += w;
      waitSum += w * r.waitMinutes;
    }
  }
  // Newest first: the first colour to reach the top weight is the most recently reported among the tied.
  let color = recent[0].color;
  for (const r of recent) if ((byColor.get(r.color) ?? 0) > (byColor.get(color) ?? 0)) color = r.color;
  const agreement = total > 0 ? byColor.get(color)! / total : 0;
  const evidence = 1 - 0.5 ** total;
  return {
    current_color: color,
    confidence: round2(agreement * evidence),
    report_count: recent.length,
    avg_wait_minutes: waitWeight > 0 ? Math.round(waitSum / waitWeight) : null,
    last_report_at: last.at.toISOString(),
  };
};
