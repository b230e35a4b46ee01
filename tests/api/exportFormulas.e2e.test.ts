import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin, signInClient } from '../support/actors.js';
import { arrive, call, confirmedOrder } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/** A name a spreadsheet would run as a formula reaches the back office's exports as text (issue #20 finding 8). */
describe('exports neutralise spreadsheet formulas', () => {
  let t: TestService;
  const name = '=HYPERLINK("http://evil.example","clic")';
  let orderId: number;
  let rootToken: string;
  beforeAll(async () => {
    t = await startTestService({ env: { OFFICIAL_RATE_VES: '36.5' } });
    const client = await signInClient(t, undefined, name);
    const flow = await confirmedOrder(t, { client });
    await arrive(t, flow);
    const delivered = await call(t).post(`/orders/${flow.orderId}/deliver`, flow.driver.token, {
      actualLiters: 1900,
      deliveryPin: flow.pin,
    });
    expect(delivered.status).toBe(200);
    orderId = flow.orderId;
    rootToken = (await signInAdmin(t)).token;
  });
  afterAll(() => t?.stop());

  const download = async (format: 'csv' | 'xlsx') => {
    const res = await fetch(`${t.baseUrl}/api/v1/admin/reports/orders/export?format=${format}`, {
      headers: { authorization: `Bearer ${rootToken}` },
    });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it(
    'CSV: text starting with = + - @ tab or CR gets an ' + 'apostrophe; numbers, negative ones too, stay numbers',
    async () => {
      const [header, ...rows] = Papa.parse<string[]>((await download('csv')).toString('utf8').replace(/^\uFEFF/, ''), {
        skipEmptyLines: true,
      }).data;
      const row = rows.find((r) => r[header.indexOf('Pedido')] === String(orderId))!;
      expect(row[header.indexOf('Cliente')]).toBe(`'${name}`);
      expect(row[header.indexOf('Dif. litros')]).toBe('-100');
      expect(row[header.indexOf('Litros entregados')]).toBe('1900');
    },
  );

  it('XLSX: the name is a string cell, never a formula', async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await download('xlsx')) as unknown as ArrayBuffer);
    const sheet = book.worksheets[0];
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const row = [...Array(sheet.actualRowCount).keys()]
      .map((i) => sheet.getRow(i + 1))
      .find((r) => r.getCell(header.indexOf('Pedido') + 1).value === orderId)!;
    const cell = row.getCell(header.indexOf('Cliente') + 1);
    expect([cell.type, cell.value]).toEqual([ExcelJS.ValueType.String, name]);
    expect(row.getCell(header.indexOf('Dif. litros') + 1).value).toBe(-100);
  });
});
