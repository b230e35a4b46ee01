import { PassThrough } from 'node:stream';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { Column } from './report.js';
import { writeCsv } from './exportStreams.js';

/** The cells of a one-column CSV export of these texts, as a spreadsheet would read them. */
const exported = async (texts: string[]): Promise<string[]> => {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const columns: Column<string>[] = [{ header: 'Texto', type: 'text', value: (t) => t }];
  const items = texts.values();
  await writeCsv(out, columns, items.next(), { next: async () => items.next() });
  out.end();
  const csv = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  return Papa.parse<string[]>(csv, { skipEmptyLines: true })
    .data.slice(1)
    .map((r) => r[0]);
};

describe('CSV export cells a spreadsheet would run as a formula', () => {
  it('leave a signed number exactly as the list shows it: a phone, an amount', async () => {
    const numbers = ['+584125811092', '-12.50', '+7', '-.5'];
    expect(await exported(numbers)).toEqual(numbers);
  });

  it('prefix with an apostrophe text that begins with = @ tab or CR, or + or - not followed by a number', async () => {
    const formulas = ['=HYPERLINK("x")', '@SUM(A1)', '\t=1', '\r=1', '+1+2', '-2+3', '+cmd|x', '-', '+58 412 5811092'];
    expect(await exported(formulas)).toEqual(formulas.map((f) => `'${f}`));
  });

  it('leave other text alone', async () => {
    expect(await exported(['Av. Urdaneta', '58+1', 'a=b'])).toEqual(['Av. Urdaneta', '58+1', 'a=b']);
  });
});
