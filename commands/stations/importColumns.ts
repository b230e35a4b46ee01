import { nameKey } from './stationRules.js';

/**
 * The import file's columns (docs/domain-rules.md, stations), in order: the service's name, which the
 * spec's template carries, and the Spanish header of the template an operator downloads
 * (docs/decisions/0103). The first five are required.
 */
export const IMPORT_COLUMNS = [
  ['name', 'Nombre'],
  ['address', 'Dirección'],
  ['latitude', 'Latitud'],
  ['longitude', 'Longitud'],
  ['tipo', 'Tipo'],
  ['description', 'Descripción'],
  ['landmark', 'Punto de referencia'],
  ['city', 'Ciudad'],
  ['opening_time', 'Hora de apertura'],
  ['closing_time', 'Hora de cierre'],
] as const;

export type ImportColumn = (typeof IMPORT_COLUMNS)[number][0];
export const COLUMN_NAMES: readonly ImportColumn[] = IMPORT_COLUMNS.map(([name]) => name);
export const REQUIRED_COLUMNS = COLUMN_NAMES.slice(0, 5);

/** The headers of the template: the spec's names (`en`) or the Spanish ones (`es`). */
export const HEADER_LANGUAGES = ['en', 'es'] as const;
export type HeaderLanguage = (typeof HEADER_LANGUAGES)[number];
export const templateHeaders = (language: HeaderLanguage): string[] =>
  IMPORT_COLUMNS.map(([name, spanish]) => (language === 'es' ? spanish : name));

/** A header as a spreadsheet may write it: case, accents, spaces, underscores and dashes do not matter. */
const headerKey = (header: string) => nameKey(header.replace(/[_-]+/g, ' '));

const COLUMN_BY_HEADER = new Map<string, string>(
  IMPORT_COLUMNS.flatMap(([name, spanish]) => [
    [headerKey(name), name],
    [headerKey(spanish), name],
  ]),
);

/** The column a header names, in either language; any other header is kept (folded) and ignored. */
export const columnOf = (header: string): string => COLUMN_BY_HEADER.get(headerKey(header)) ?? headerKey(header);
