/**
 * Rules between two fields of a request (an end on or after its start, a maximum not below its minimum): a
 * JSON Schema cannot say them, so an outside checker would generate a request the service refuses. Each
 * route that has some names them (`rules` of defineRoute): the operation's description says each one, the
 * fields' descriptions say theirs, and the 422 answer carries an example of the refusal
 * (docs/decisions/0090-the-document-says-the-cross-field-rules.md).
 */
export interface CrossFieldRules {
  /** Each rule in a sentence. */
  says: readonly string[];
  /** The 422 answer to a request that breaks the first rule. */
  example: { error: 'ValidationError'; message: string; details: { fieldErrors: Record<string, string[]> } };
}

/** One rule: its sentence and the field errors of a request that breaks it. */
export const rule = (says: string, fieldErrors: Record<string, string[]>): CrossFieldRules => ({
  says: [says],
  example: { error: 'ValidationError', message: 'The given data was invalid.', details: { fieldErrors } },
});

/** Several rules of one operation; the example is the first one's. */
export const rules = (first: CrossFieldRules, ...more: CrossFieldRules[]): CrossFieldRules => ({
  says: [first, ...more].flatMap((r) => r.says),
  example: first.example,
});

/** `high` may not be below `low` (both optional). */
export const orderedPairRule = (low: string, high: string): CrossFieldRules =>
  rule(`${high} may not be below ${low}.`, { [high]: [`must be greater than or equal to ${low}`] });

/** A date window whose end may not be before its start. */
export const dateOrderRule = (from = 'date_from', to = 'date_to', message = `must not be before ${from}`) =>
  rule(`${to} is on or after ${from}.`, { [to]: [message] });

export const describeRules = (r: CrossFieldRules): string =>
  ['Rules between fields (422 ValidationError when one is broken):', ...r.says.map((s) => `- ${s}`)].join('\n');
