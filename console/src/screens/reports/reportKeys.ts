export const REPORT_KEYS = [
  'orders',
  'cancellations',
  'intents',
  'operational',
  'drivers',
  'documents',
  'performance',
] as const;
export type ReportKey = (typeof REPORT_KEYS)[number];
