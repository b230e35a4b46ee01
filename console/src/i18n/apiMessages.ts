/**
 * The API's validation messages (English, from its schemas) in Spanish, for the field they belong to.
 * The API keeps one language for every client; the console says it in its operators' language. A
 * message not recognised here reads as a plain "invalid value" rather than English.
 */
const characters = (n: string) => (n === '1' ? '1 carácter' : `${n} caracteres`);

const RULES: [RegExp, (m: RegExpExecArray) => string][] = [
  // Stations and promotion campaigns (checked first: "is required when…" is not a missing field).
  [/must be null when the audience is DRIVER/, () => 'Debe quedar vacío cuando la audiencia es Conductores.'],
  [/is required when the audience is CLIENT/, () => 'Es obligatorio cuando la audiencia es Clientes.'],
  [/must be after starts_at/, () => 'Debe ser posterior a la fecha inicial.'],
  [/Unknown city/, () => 'Ciudad desconocida.'],
  [
    /optional V, E, J, G or P followed by (\d+) to (\d+) digits/,
    (m) => `Debe ser una cédula o RIF: V, E, J, G o P (opcional) y de ${m[1]} a ${m[2]} dígitos.`,
  ],
  [/HH:MM/, () => 'Debe ser una hora HH:MM (de 00:00 a 23:59).'],
  [/must be AGUA or GASOLINA/, () => 'Debe ser AGUA o GASOLINA.'],
  [/must be a number/, () => 'Debe ser un número.'],
  [/expected string to have >=(\d+) characters?/, (m) => `Debe tener al menos ${characters(m[1])}.`],
  [/expected string to have <=(\d+) characters?/, (m) => `Debe tener como máximo ${characters(m[1])}.`],
  [/expected (?:number|int) to be >=?(-?[\d.]+)/, (m) => `Debe ser mayor o igual a ${m[1].replace('.', ',')}.`],
  [/expected (?:number|int) to be <=?(-?[\d.]+)/, (m) => `Debe ser menor o igual a ${m[1].replace('.', ',')}.`],
  [/expected array to have >=(\d+) items?/, (m) => `Elija al menos ${m[1]}.`],
  [/received undefined|Required/i, () => 'Este campo es obligatorio.'],
  [/expected int, received number/, () => 'Debe ser un número entero.'],
  [/expected (?:number|int), received/, () => 'Debe ser un número.'],
  [/Invalid option|Invalid enum/i, () => 'Elija uno de los valores permitidos.'],
  [/Unrecognized key/i, () => 'Campo no reconocido por el servicio.'],
  [/24-hour time/, () => 'Debe ser una hora de 24 horas (HH:MM, por ejemplo 18:00).'],
  [/must be at least ([\d.]+)/, (m) => `Debe ser al menos ${m[1].replace('.', ',')}.`],
  [/exactly 7/, () => 'Marque los siete días (de domingo a sábado).'],
  [/time zone|UTC offset/i, () => 'Debe ser una zona horaria (America/Caracas) o un desfase (-04:00).'],
  [/ISO 8601 date-time|Invalid ISO datetime|datetime/i, () => 'Debe ser una fecha y hora válida.'],
  [/YYYY-MM-DD|Invalid ISO date|date/i, () => 'Debe ser una fecha válida (AAAA-MM-DD).'],
  [/YYYY-MM/, () => 'Debe tener la forma AAAA-MM.'],
  [/email/i, () => 'Debe ser un correo electrónico válido.'],
  [/phone/i, () => 'Debe ser un teléfono válido.'],
  [
    /lowercase letters, digits or underscores/,
    () => 'Use de 2 a 60 minúsculas, dígitos o guiones bajos (por ejemplo pago_movil_banesco).',
  ],
  [/is already used/, () => 'Ya está en uso.'],
  [/https URL/, () => 'Debe ser una dirección https:// (por ejemplo https://banco.com/qr.png).'],
  [/expected array to have <=(\d+) items?/, (m) => `Como máximo ${m[1]}.`],
  [/at least one field/, () => 'Indique al menos un dato.'],
  [/must not be before/, () => 'No puede ser anterior a la fecha inicial.'],
];

export const spanishFieldMessage = (message: string): string => {
  for (const [pattern, say] of RULES) {
    const m = pattern.exec(message);
    if (m) return say(m);
  }
  return 'Valor no válido.';
};

/** The API's error identifiers an operator meets, in Spanish; others fall back to a generic sentence. */
export const ERROR_MESSAGES: Record<string, string> = {
  ValidationError: 'Revise los datos marcados.',
  ReceiptNotFailed: 'El recibo ya no está fallido: otra persona lo resolvió. Actualice la bandeja.',
  RetryUnsafeDeadline: 'No se puede reintentar: venció el plazo de conciliación. Márquelo pagado o anúlelo.',
  WrongStatus: 'El estado actual no permite esta acción. Actualice la página.',
  PaymentApprovalFailed: 'El pago no se puede aprobar en su estado actual.',
  PaymentRejectionFailed: 'El pago no se puede rechazar en su estado actual.',
  DriverNotFound: 'No se encontró el conductor.',
  CustomerNotFound: 'No se encontró el cliente.',
  ReceiptNotFound: 'No se encontró el recibo.',
  IdempotencyKeyReused: 'Esta operación ya se registró con otros datos.',
  StationNotFound: 'No se encontró la estación.',
  CoordsOutOfRange: 'Las coordenadas quedan fuera de Venezuela.',
  DuplicateStation: 'Ya existe una estación con este nombre a menos de 50 m.',
  HasRecentReports: 'La estación tiene reportes de los últimos 7 días: desactívela en lugar de eliminarla.',
  CommentNotFound: 'El comentario ya no existe.',
  ImportJobNotFound: 'No se encontró la importación.',
  InvalidEncoding: 'El archivo no está en UTF-8 ni en Latin-1.',
  EmptyFile: 'El archivo está vacío.',
  MissingHeaders:
    'Faltan columnas obligatorias: Nombre, Dirección, Latitud, Longitud y Tipo. Use los encabezados de la plantilla.',
  TooManyRows: 'El archivo tiene más de 2.000 filas.',
  PromotionNotFound: 'No se encontró la campaña.',
  PromotionAlreadyGranted: 'La campaña ya otorgó premios: esos campos no pueden cambiar.',
  PromotionHasGrants: 'La campaña ya otorgó premios y no se puede eliminar: apáguela.',
  Conflict: 'Otra persona cambió estos datos al mismo tiempo. Intente de nuevo.',
  OwnAccount:
    'No puede desactivar su propia cuenta ni quitarse los permisos de superadministrador: pídaselo a otro superadministrador.',
};
