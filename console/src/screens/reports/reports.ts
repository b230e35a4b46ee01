import type { Ok, QueryOf } from '../../api/client';
import type { ReportKey } from './reportKeys';

/** The seven report paths; each has an export at `${path}/export`. */
export type ReportPath =
  | '/admin/reports/orders'
  | '/admin/reports/orders/cancellations'
  | '/admin/reports/orders/intents'
  | '/admin/reports/orders/operational'
  | '/admin/reports/drivers'
  | '/admin/reports/drivers/documents'
  | '/admin/reports/drivers/performance';

type Item<P extends ReportPath> = Ok<P, 'get'> extends { items: (infer I)[] } ? I : never;
type SortOf<P extends ReportPath> = QueryOf<P> extends { sort?: infer S } ? NonNullable<S> : never;

export type FilterKind = 'date' | 'int' | 'number' | 'text' | 'bool' | readonly string[];

/**
 * One report as the console shows it. Every name is checked against the generated API types: a filter,
 * sort key or column the API renames breaks the console's type check.
 */
export interface ReportDef<P extends ReportPath = ReportPath> {
  path: P;
  filters: readonly (readonly [keyof QueryOf<P> & string, FilterKind])[];
  sort: readonly SortOf<P>[];
  columns: readonly (keyof Item<P> & string)[];
  paged: boolean;
  /** The default page size (the documents report pages by 50). */
  limit?: number;
  chart?: 'operational' | 'performance';
}

const def = <P extends ReportPath>(d: ReportDef<P>): ReportDef<P> => d;

const STATUS = [
  'BROADCASTING',
  'COUNTER_OFFERED',
  'WAITING_FOR_PAYMENT',
  'CONFIRMED',
  'IN_PROGRESS',
  'ARRIVED',
  'DELIVERED',
  'CANCELLED',
  'EXPIRED',
] as const;
const WATER = ['POTABLE', 'INDUSTRIAL'] as const;
const KYC = ['PENDING_KYC', 'PENDING_REVIEW', 'APPROVED', 'REJECTED'] as const;

export const REPORTS: { [K in ReportKey]: ReportDef<ReportPath> } = {
  orders: def({
    path: '/admin/reports/orders',
    filters: [
      ['date_from', 'date'],
      ['date_to', 'date'],
      ['city_id', 'int'],
      ['status', STATUS],
      ['driver_id', 'int'],
      ['client_id', 'int'],
      ['water_type', WATER],
      ['payment_method', ['CASH_USD', 'EXCHANGE_PAY', 'PAYPROV_DI', 'PAYMENT_FORM', 'PAGO_MOVIL']],
      ['payment_status', ['confirmed', 'pending', 'failed']],
      ['origin', ['app', 'remate']],
      ['has_counter_offer', 'bool'],
      ['has_incident', 'bool'],
      ['rating_min', 'int'],
      ['rating_max', 'int'],
    ],
    sort: [
      'id',
      'created_at',
      'status',
      'water_type',
      'city_name',
      'client_name',
      'driver_name',
      'liters_requested',
      'liters_delivered',
      'liters_diff',
      'base_price_usd',
      'final_price_usd',
      'commission_usd',
      'driver_net_usd',
      'acceptance_minutes',
      'delivery_minutes',
      'rating',
      'incidents',
    ],
    columns: [
      'created_at',
      'id',
      'status',
      'city_name',
      'client_name',
      'driver_name',
      'plate',
      'water_type',
      'liters_requested',
      'liters_delivered',
      'liters_diff',
      'base_price_usd',
      'final_price_usd',
      'payment_method_label',
      'payment_status',
      'commission_usd',
      'solidary_fund_usd',
      'driver_net_usd',
      'origin',
      'has_counter_offer',
      'acceptance_minutes',
      'delivery_minutes',
      'rating',
      'incidents',
    ],
    paged: true,
  }),
  cancellations: def({
    path: '/admin/reports/orders/cancellations',
    filters: [
      ['date_from', 'date'],
      ['date_to', 'date'],
      ['city_id', 'int'],
      ['cancelled_role', ['cliente', 'conductor', 'admin', 'sistema']],
      ['status_at_cancel', ['BROADCASTING', 'WAITING_FOR_PAYMENT', 'CONFIRMED', 'IN_PROGRESS']],
      ['driver_id', 'int'],
      ['client_id', 'int'],
      ['with_refund', 'bool'],
    ],
    sort: ['id', 'date', 'final_status', 'client_name', 'driver_name', 'liters', 'unrealized_usd', 'minutes_to_cancel'],
    columns: [
      'date',
      'id',
      'final_status',
      'cancelled_by',
      'status_at_cancel',
      'reason',
      'city_name',
      'client_name',
      'driver_name',
      'liters',
      'unrealized_usd',
      'minutes_to_cancel',
      'charged_before',
      'refunded',
      'recovered',
    ],
    paged: true,
  }),
  intents: def({
    path: '/admin/reports/orders/intents',
    filters: [
      ['date_from', 'date'],
      ['date_to', 'date'],
      ['city_id', 'int'],
      ['client_id', 'int'],
      ['water_type', WATER],
      [
        'failure_reason',
        [
          'expired_no_offers',
          'expired_with_offers',
          'cancelled_by_client',
          'cancelled_by_driver',
          'cancelled_by_admin',
        ],
      ],
      ['has_offers', 'bool'],
      ['cancellation_reason_code', 'text'],
    ],
    sort: [
      'id',
      'created_at',
      'final_status',
      'client_name',
      'liters_requested',
      'unrealized_usd',
      'offers_count',
      'minutes_to_outcome',
    ],
    columns: [
      'created_at',
      'id',
      'final_status',
      'failure_reason_label',
      'cancellation_reason_label',
      'city_name',
      'client_name',
      'water_type',
      'liters_requested',
      'base_price_usd',
      'unrealized_usd',
      'minutes_to_outcome',
      'offers_count',
      'best_offer_usd',
    ],
    paged: true,
  }),
  operational: def({
    path: '/admin/reports/orders/operational',
    filters: [
      ['date_from', 'date'],
      ['date_to', 'date'],
      ['city_id', 'int'],
      ['client_id', 'int'],
      ['driver_id', 'int'],
      ['water_type', WATER],
    ],
    sort: [
      'date',
      'published',
      'accepted',
      'delivered',
      'cancelled',
      'expired',
      'conversion_pct',
      'liters_requested',
      'liters_delivered',
      'avg_ticket_usd',
      'avg_acceptance_minutes',
      'avg_delivery_minutes',
      'active_drivers',
      'gross_income_usd',
      'commission_usd',
    ],
    columns: [
      'date',
      'published',
      'accepted',
      'delivered',
      'cancelled',
      'expired',
      'conversion_pct',
      'liters_requested',
      'liters_delivered',
      'avg_ticket_usd',
      'avg_acceptance_minutes',
      'avg_delivery_minutes',
      'active_drivers',
      'gross_income_usd',
      'commission_usd',
    ],
    paged: false,
    chart: 'operational',
  }),
  drivers: def({
    path: '/admin/reports/drivers',
    filters: [
      ['kyc_state', KYC],
      ['availability', ['en_linea', 'fuera_de_linea', 'bloqueado']],
      ['rating_min', 'number'],
      ['rating_max', 'number'],
      ['with_cash_debt', 'bool'],
      ['min_balance', 'number'],
      ['capacity_min', 'int'],
      ['capacity_max', 'int'],
    ],
    sort: [
      'name',
      'registered_at',
      'kyc_state',
      'rating',
      'ratings_count',
      'capacity',
      'balance_usd',
      'cash_debt_usd',
      'last_activity',
      'deliveries',
      'liters_delivered',
      'gross_earnings_usd',
      'commission_paid_usd',
      'own_cancellations',
    ],
    columns: [
      'name',
      'id_number',
      'phone',
      'registered_at',
      'kyc_state',
      'availability',
      'plate',
      'capacity',
      'deliveries',
      'own_cancellations',
      'liters_delivered',
      'gross_earnings_usd',
      'commission_paid_usd',
      'balance_usd',
      'cash_debt_usd',
      'rating',
      'ratings_count',
      'incidents',
      'last_activity',
    ],
    paged: true,
  }),
  documents: def({
    path: '/admin/reports/drivers/documents',
    filters: [
      ['kyc_state', KYC],
      ['document', ['ID_FRONT', 'LICENSE', 'MEDICAL_CERT', 'RCV', 'ADDRESS_PROOF', 'SANITARY_CERT']],
      ['status', ['vigente', 'por_vencer', 'vencido', 'faltante']],
      ['only_blocked', 'bool'],
    ],
    sort: [
      'driver_name',
      'id_number',
      'kyc_state',
      'kyc_approved_at',
      'document',
      'status',
      'traffic_light',
      'expires_at',
      'days_remaining',
      'blocks',
    ],
    columns: [
      'driver_name',
      'id_number',
      'kyc_state',
      'kyc_approved_at',
      'document_label',
      'status',
      'traffic_light',
      'expires_at',
      'days_remaining',
      'blocks',
    ],
    paged: true,
    limit: 50,
  }),
  performance: def({
    path: '/admin/reports/drivers/performance',
    filters: [
      ['date_from', 'date'],
      ['date_to', 'date'],
      ['granularity', ['day', 'week', 'month']],
      ['driver_id', 'int'],
      ['min_deliveries', 'int'],
      ['rank_by', ['deliveries', 'liters_delivered', 'earnings_usd', 'rating']],
    ],
    sort: [],
    columns: [
      'period',
      'driver_name',
      'rank',
      'accepted',
      'deliveries',
      'completion_rate',
      'own_cancellations',
      'avg_delivery_minutes',
      'liters_agreed',
      'liters_delivered',
      'liters_accuracy',
      'earnings_usd',
      'rating',
      'incidents',
    ],
    paged: false,
    chart: 'performance',
  }),
};

/** A report's JSON answer, as the screen reads it (the union of the seven shapes' parts it uses). */
export interface ReportAnswer {
  items: Record<string, unknown>[];
  meta?: { total: number; per_page: number; current_page: number; last_page: number };
  totals?: Record<string, unknown>;
  comparison?: Ok<'/admin/reports/orders/operational', 'get'>['comparison'];
  granularity?: string;
}
