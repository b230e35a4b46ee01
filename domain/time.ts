/** Instants as events and answers write them: ISO 8601 in UTC, the only form a stored or sent time takes. */

export const iso = (d: Date | string): string => new Date(d).toISOString();

/** A column that may be empty (a time that has not happened yet). */
export const isoOrNull = (d: Date | string | null): string | null => (d ? iso(d) : null);

export const ms = (at: string): number => Date.parse(at);

export const addMinutes = (d: Date, minutes: number): string => new Date(d.getTime() + minutes * 60_000).toISOString();
