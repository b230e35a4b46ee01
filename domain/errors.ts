/**
 * A domain error carries the spec's error identifier and a kind; the API maps the kind to an HTTP
 * status in one place (api/errorMapper.ts). The same identifier can stand for different statuses in the
 * spec (DeliveryError is 400 for a wrong PIN, 409 for an undeliverable order), so the kind travels with it.
 */
export type ErrorKind =
  | 'bad_request' // 400
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'unprocessable' // 422
  | 'too_many' // 429
  | 'upstream' // 502
  | 'unavailable' // 503
  | 'internal'; // 500

/**
 * Every error identifier the service answers over HTTP. The error constructors take only these, and each
 * route declares, per status, which of them it answers (api/route.ts `errors`); the OpenAPI document's
 * `error` enums come from those declarations.
 */
export type ErrorId =
  | 'ActiveOrderExists'
  | 'AlreadyRated'
  | 'BadRequest'
  | 'CancelError'
  | 'ChatError'
  | 'CommentNotFound'
  | 'AnchorNotFound'
  | 'Conflict'
  | 'Cooldown'
  | 'CoordsOutOfRange'
  | 'CustomerNotFound'
  | 'DeliveryError'
  | 'DriverNotFound'
  | 'DuplicateStation'
  | 'EmptyFile'
  | 'EmptyWebhookBody'
  | 'ExchangeRateUnavailable'
  | 'Forbidden'
  | 'GeocodingNotConfigured'
  | 'HasRecentReports'
  | 'ImportJobNotFound'
  | 'InsufficientCredit'
  | 'InsufficientLiters'
  | 'InternalError'
  | 'InvalidEncoding'
  | 'InvalidOtp'
  | 'InvalidPayoutConfig'
  | 'InvalidWebhook'
  | 'MissingHeaders'
  | 'MissingPhone'
  | 'NoClientProfile'
  | 'NoDriverAssigned'
  | 'NoDriverProfile'
  | 'NoLocation'
  | 'NoTracking'
  | 'NotAllowed'
  | 'NotFound'
  | 'OrderNotDelivered'
  | 'OrderNotFound'
  | 'OwnAccount'
  | 'PayloadTooLarge'
  | 'PaymentApprovalFailed'
  | 'PaymentError'
  | 'PaymentMethodLocked'
  | 'PaymentRejectionFailed'
  | 'PromotionAlreadyGranted'
  | 'PromotionHasGrants'
  | 'PromotionNotFound'
  | 'ReceiptNotFailed'
  | 'ReceiptNotFound'
  | 'RetryUnsafeDeadline'
  | 'RoleConflict'
  | 'RouteNotFound'
  | 'ServiceUnavailable'
  | 'SmsSendError'
  | 'StationNotFound'
  | 'StreamNotFound'
  | 'SupportError'
  | 'TooFarFromDestination'
  | 'TooManyRows'
  | 'Unauthorized'
  | 'Unprocessable'
  | 'UnsupportedMediaType'
  | 'UnsupportedProvider'
  | 'UpstreamError'
  | 'UserNotFound'
  | 'ValidationError'
  | 'WrongStatus';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: ErrorId,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const badRequest = (code: ErrorId, message: string, details?: Record<string, unknown>) =>
  new DomainError('bad_request', code, message, details);
export const unauthorized = (code: ErrorId, message: string, details?: Record<string, unknown>) =>
  new DomainError('unauthorized', code, message, details);
export const forbidden = (code: ErrorId, message: string, details?: Record<string, unknown>) =>
  new DomainError('forbidden', code, message, details);
export const notFound = (code: ErrorId, message: string, details?: Record<string, unknown>) =>
  new DomainError('not_found', code, message, details);
export const conflict = (code: ErrorId, message: string, details?: Record<string, unknown>) =>
  new DomainError('conflict', code, message, details);
export const unprocessable = (code: ErrorId, message: string, details?: Record<string, unknown>) =>
  new DomainError('unprocessable', code, message, details);
export const tooMany = (code: ErrorId, message: string, details?: Record<string, unknown>) =>
  new DomainError('too_many', code, message, details);

/** 422 ValidationError with details.fieldErrors, the spec's shape for bad input. */
export const validationError = (fieldErrors: Record<string, string[]>, message = 'The given data was invalid.') =>
  new DomainError('unprocessable', 'ValidationError', message, { fieldErrors });
