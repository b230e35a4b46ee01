/**
 * Outside providers (SMS, mail, payments, push, maps …). Each adapter adds its port by declaration merging
 * (`declare module '…/infra/providers.js'`), and each area's module sets it at start, choosing the real
 * adapter or the simulator from config.
 */
// Each adapter adds its provider by declaration merging.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Providers {}
