/** Venezuelan bank codes (the four digits that open an account number) and the names operators know. */
const BANKS: Record<string, string> = {
  '0102': 'Banco de Venezuela',
  '0104': 'Venezolano de Crédito',
  '0105': 'Mercantil',
  '0108': 'Provincial',
  '0114': 'Bancaribe',
  '0115': 'Exterior',
  '0128': 'Banco Caroní',
  '0134': 'Banesco',
  '0137': 'Sofitasa',
  '0138': 'Banco Plaza',
  '0146': 'Bangente',
  '0151': 'BFC Banco Fondo Común',
  '0156': '100% Banco',
  '0157': 'DelSur',
  '0163': 'Banco del Tesoro',
  '0166': 'Banco Agrícola de Venezuela',
  '0168': 'Bancrecer',
  '0169': 'Mi Banco',
  '0171': 'Banco Activo',
  '0172': 'Bancamiga',
  '0174': 'Banplus',
  '0175': 'Banco Digital de los Trabajadores',
  '0177': 'Banfanb',
  '0191': 'Banco Nacional de Crédito',
};

/** '0102 · Banco de Venezuela'; an unknown code as it came. */
export const bankName = (code: string | null | undefined): string =>
  code ? (BANKS[code] ? `${code} · ${BANKS[code]}` : code) : '—';

/** Every known bank as a choice: [code, '0102 · Banco de Venezuela']. */
export const bankOptions = (): [string, string][] => Object.keys(BANKS).map((code) => [code, bankName(code)]);
