/**
 * Spec 4.2: the reason codes each role may give when cancelling (GET
 * /orders/cancellation-reasons); labels are for Venezuelan users.
 */
export const CANCEL_ROLES = ['CLIENT', 'DRIVER', 'ADMIN'] as const;
export type CancelRole = (typeof CANCEL_ROLES)[number];

export interface CancellationReason {
  code: string;
  label: string;
}

export const cancellationReasons: Readonly<Record<CancelRole, readonly CancellationReason[]>> = {
  CLIENT: [
    { code: 'CLIENT_CHANGED_MIND', label: 'Cambié de opinión' },
    { code: 'CLIENT_PRICE_TOO_HIGH', label: 'El precio es muy alto' },
    { code: 'CLIENT_DELAY', label: 'Está tardando demasiado' },
    { code: 'CLIENT_DUPLICATE', label: 'Pedido duplicado' },
    { code: 'CLIENT_FOUND_ALTERNATIVE', label: 'Conseguí otro proveedor' },
    { code: 'CLIENT_OTHER', label: 'Otro motivo' },
  ],
  DRIVER: [
    { code: 'DRIVER_TOO_FAR', label: 'El destino está muy lejos' },
    { code: 'DRIVER_NO_CAPACITY', label: 'No tengo agua suficiente en el tanque' },
    { code: 'DRIVER_CLIENT_UNREACHABLE', label: 'No logro contactar al cliente' },
    { code: 'DRIVER_VEHICLE_ISSUE', label: 'Problema con el vehículo' },
    { code: 'DRIVER_OTHER', label: 'Otro motivo' },
  ],
  ADMIN: [
    { code: 'ADMIN_FRAUD', label: 'Sospecha de fraude' },
    { code: 'ADMIN_TEST', label: 'Pedido de prueba' },
    { code: 'ADMIN_SUPPORT', label: 'Cancelado por soporte' },
    { code: 'ADMIN_DUPLICATE', label: 'Pedido duplicado' },
    { code: 'ADMIN_OTHER', label: 'Otro motivo' },
  ],
};

export const isCancellationReason = (role: CancelRole, code: string): boolean =>
  cancellationReasons[role].some((r) => r.code === code);
