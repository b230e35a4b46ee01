/** Spec 4.2: the reason codes each role may give when cancelling (GET /orders/cancellation-reasons). */
export type CancelRole = 'CLIENT' | 'DRIVER' | 'ADMIN';

export interface CancellationReason {
  code: string;
  label: string;
}

export const cancellationReasons: Readonly<Record<CancelRole, readonly CancellationReason[]>> = {
  CLIENT: [
    { code: 'CLIENT_CHANGED_MIND', label: 'I changed my mind' },
    { code: 'CLIENT_PRICE_TOO_HIGH', label: 'The price is too high' },
    { code: 'CLIENT_DELAY', label: 'It is taking too long' },
    { code: 'CLIENT_DUPLICATE', label: 'I placed a duplicate order' },
    { code: 'CLIENT_FOUND_ALTERNATIVE', label: 'I found another supplier' },
    { code: 'CLIENT_OTHER', label: 'Other reason' },
  ],
  DRIVER: [
    { code: 'DRIVER_TOO_FAR', label: 'The destination is too far' },
    { code: 'DRIVER_NO_CAPACITY', label: 'Not enough water in the tank' },
    { code: 'DRIVER_CLIENT_UNREACHABLE', label: 'The customer cannot be reached' },
    { code: 'DRIVER_VEHICLE_ISSUE', label: 'Vehicle problem' },
    { code: 'DRIVER_OTHER', label: 'Other reason' },
  ],
  ADMIN: [
    { code: 'ADMIN_FRAUD', label: 'Suspected fraud' },
    { code: 'ADMIN_TEST', label: 'Test order' },
    { code: 'ADMIN_SUPPORT', label: 'Cancelled by support' },
    { code: 'ADMIN_DUPLICATE', label: 'Duplicate order' },
    { code: 'ADMIN_OTHER', label: 'Other reason' },
  ],
};

export const isCancellationReason = (role: CancelRole, code: string): boolean =>
  cancellationReasons[role].some((r) => r.code === code);
