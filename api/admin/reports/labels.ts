import type { OrderStatus } from '../../../domain/order/events.js';

/** Spanish labels of the reports (docs/domain-rules.md: labels are Spanish). */
const ORDER_STATUS_LABELS: Record<OrderStatus, string> = {
  BROADCASTING: 'Publicado',
  COUNTER_OFFERED: 'Con contraoferta',
  WAITING_FOR_PAYMENT: 'Esperando pago',
  CONFIRMED: 'Confirmado',
  IN_PROGRESS: 'En camino',
  ARRIVED: 'En destino',
  DELIVERED: 'Entregado',
  CANCELLED: 'Cancelado',
  EXPIRED: 'Expirado',
};

export const statusLabel = (s: string): string => ORDER_STATUS_LABELS[s as OrderStatus] ?? s;

export const PAYMENT_STATUS_LABELS = { confirmed: 'Confirmado', pending: 'Pendiente', failed: 'Fallido' } as const;

export const ORIGIN_LABELS = { app: 'App', remate: 'Remate' } as const;

/** Who cancelled, in the cancellations report's words; an expiry is the system's. */
export const CANCELLED_BY = { CLIENT: 'cliente', DRIVER: 'conductor', ADMIN: 'admin', SYSTEM: 'sistema' } as const;

export const FAILURE_REASON_LABELS = {
  expired_no_offers: 'Expiró sin ofertas',
  expired_with_offers: 'Expiró con ofertas sin aceptar',
  cancelled_by_client: 'Cancelado por el cliente',
  cancelled_by_driver: 'Cancelado por el conductor',
  cancelled_by_admin: 'Cancelado por un administrador',
} as const;
export type FailureReason = keyof typeof FAILURE_REASON_LABELS;

export const AVAILABILITY = ['en_linea', 'fuera_de_linea', 'bloqueado'] as const;

export const DOCUMENT_STATUSES = ['vigente', 'por_vencer', 'vencido', 'faltante'] as const;

export const yesNo = (b: boolean): string => (b ? 'Sí' : 'No');
