import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { parseImport, templateCsv } from './bulkImport.js';

/** The import file's headers (docs/decisions/0103): the spec's English names and the operator's Spanish ones. */
describe('station import columns', () => {
  const row = 'Pozo Sur,Calle 1,10.45,-66.9,AGUA,Con bomba,Frente a la plaza,Maracay,06:00,18:00';
  const values = {
    name: 'Pozo Sur',
    address: 'Calle 1',
    latitude: '10.45',
    longitude: '-66.9',
    tipo: 'AGUA',
    description: 'Con bomba',
    landmark: 'Frente a la plaza',
    city: 'Maracay',
    opening_time: '06:00',
    closing_time: '18:00',
  };
  const headerOf = (csv: string) => Papa.parse<string[]>(csv.replace(/^\uFEFF/, '').trim()).data[0];

  it('the template carries the spec’s names or the Spanish headers, and either reads back as the same row', () => {
    expect(headerOf(templateCsv(false, 'en'))).toEqual([
      'name',
      'address',
      'latitude',
      'longitude',
      'tipo',
      'description',
      'landmark',
      'city',
      'opening_time',
      'closing_time',
    ]);
    const spanish = headerOf(templateCsv(false, 'es'));
    expect(spanish).toEqual([
      'Nombre',
      'Dirección',
      'Latitud',
      'Longitud',
      'Tipo',
      'Descripción',
      'Punto de referencia',
      'Ciudad',
      'Hora de apertura',
      'Hora de cierre',
    ]);
    for (const language of ['en', 'es'] as const) {
      const template = templateCsv(false, language)
        .replace(/^\uFEFF/, '')
        .trim();
      expect(parseImport(`${template}\r\n${row}`), language).toEqual([{ line: 2, values }]);
    }
    // The samples of both templates are the same rows.
    expect(parseImport(templateCsv(true, 'es'))).toEqual(parseImport(templateCsv(true, 'en')));
  });

  it('reads a header whatever its case, accents, spacing, underscores or column order', () => {
    const csv = [
      'LATITUD;longitud;  nombre ;DIRECCION;tipo;hora_de_apertura;Hora-de-Cierre;punto de referencia;Notas',
      '10,45;-66,9;Pozo Sur;Calle 1;AGUA;06:00;18:00;Frente a la plaza;ignorada',
    ].join('\n');
    expect(parseImport(csv)[0].values).toMatchObject({
      name: 'Pozo Sur',
      address: 'Calle 1',
      latitude: '10,45',
      opening_time: '06:00',
      closing_time: '18:00',
      landmark: 'Frente a la plaza',
      description: '',
    });
  });

  it('names the required columns missing by their service names, whichever language the file uses', () => {
    expect(() => parseImport('Nombre,Dirección,Ciudad\nPozo,Calle,Caracas')).toThrow(
      expect.objectContaining({ code: 'MissingHeaders', details: { missing: ['latitude', 'longitude', 'tipo'] } }),
    );
  });
});
