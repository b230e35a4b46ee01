import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The folders are layers, lowest first: each may import its own folder and those listed for it, never one
 * above it, so that a deeper folder can be read (and tested) without the ones that use it.
 */
const mayImport: Record<string, string[]> = {
  domain: [],
  infra: ['domain'],
  stores: ['domain', 'infra'],
  projections: ['domain', 'infra'],
  commands: ['domain', 'infra', 'stores', 'projections'],
  api: ['domain', 'infra', 'stores', 'projections', 'commands'],
  app: ['domain', 'infra', 'stores', 'projections', 'commands', 'api'],
};

const root = join(import.meta.dirname, '..');
const specifier = /(?:\bfrom|^import|\bimport\(|declare module)\s*['"]([^'"]+)['"]/gm;

const importsOf = (file: string): string[] =>
  [...readFileSync(join(root, file), 'utf8').matchAll(specifier)].map((m) => m[1]);

const sourcesOf = (folder: string): string[] =>
  readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => posix.join(folder, f.split('\\').join('/')));

/** The top folder a relative import lands in, or null for a package. */
const folderOf = (file: string, spec: string): string | null =>
  spec.startsWith('.') ? relative(root, join(root, dirname(file), spec)).split(/[\\/]/)[0] : null;

/**
 * The areas: a command folder and the store and projection folders that are its own (the names differ:
 * `commands/order` owns `projections/orders`). A table belongs to the folder that creates it.
 */
const ownFolders: Record<string, string[]> = {
  audit: ['audit'],
  chat: ['chat'],
  credit: ['credit'],
  driver: ['drivers'],
  exchangeRates: ['exchangeRates'],
  identity: ['identity', 'customers'],
  incident: ['incidents'],
  notification: ['notifications'],
  order: ['orders'],
  payment: ['payments', 'paymentForms', 'paymentMethods', 'billing'],
  promotions: ['promotions'],
  push: ['push'],
  rating: ['ratings'],
  settlement: ['settlement'],
  stations: ['stations'],
  surplus: ['surplus'],
  wallet: ['wallet'],
  // The files directly under commands/: the process managers' checkpoints are theirs.
  '': ['processManager'],
};
/**
 * Tables whose area is not the folder that creates them: the drivers' positions were created with the
 * cities in identity's migration 0102 (a migration's name and content stay as databases applied them), but
 * only the driver area writes and reads them (commands/driver/positions.ts; state-stored, too frequent for
 * events).
 */
const tableAreaOverrides: Record<string, string> = { driver_locations: 'drivers' };
/** Reads other areas on every command's behalf: the one door (docs/decisions/0042). */
const referenceDoors = ['commands/referenceData.ts', 'commands/referenceCache.ts'];

const tableOwners = (): Map<string, string> => {
  const create = /CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?|createTable\(\s*['"](\w+)['"]/gi;
  const owners = new Map<string, string>();
  for (const layer of ['stores', 'projections'])
    for (const file of sourcesOf(layer)) {
      const folder = file.split('/')[1];
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(create)) owners.set(m[1] ?? m[2], folder);
    }
  for (const [table, folder] of Object.entries(tableAreaOverrides)) owners.set(table, folder);
  return owners;
};

/** The tables a file names in a query: Kysely's builders (with or without an alias) and SQL text. */
const tablesNamedIn = (text: string): string[] => {
  const builder =
    /\.(?:selectFrom|insertInto|updateTable|deleteFrom|mergeInto|(?:inner|left|right|full)Join)\(\s*['"](\w+)/g;
  const sqlText = /\b(?:FROM|JOIN|INTO|UPDATE)\s+"?(\w+)"?/g;
  return [...text.matchAll(builder), ...text.matchAll(sqlText)].map((m) => m[1]);
};

/** The value imports of a file (a type-only import carries no query): its specifiers. */
const valueImportsOf = (file: string): string[] =>
  [...readFileSync(join(root, file), 'utf8').matchAll(/^import\s+(type\s+)?([\s\S]*?)\s+from\s+['"]([^'"]+)['"]/gm)]
    .filter(([, typeOnly, names]) => {
      if (typeOnly) return false;
      const braced = /^\{([\s\S]*)\}$/.exec(names.trim());
      return !braced || braced[1].split(',').some((n) => n.trim() !== '' && !n.trim().startsWith('type '));
    })
    .map((m) => m[3]);

/** The command area a file belongs to: its folder under commands/ ('' for the files directly there). */
const commandAreaOf = (file: string): string => (file.split('/').length > 2 ? file.split('/')[1] : '');

describe('layers', () => {
  for (const [layer, allowed] of Object.entries(mayImport)) {
    it(`${layer}/ imports only ${allowed.length ? allowed.join(', ') : 'itself'}`, () => {
      const wrong = sourcesOf(layer).flatMap((file) =>
        importsOf(file)
          .filter((spec) => {
            const folder = folderOf(file, spec);
            return folder !== null && folder !== layer && !allowed.includes(folder);
          })
          .map((spec) => `${file} → ${spec}`),
      );
      expect(wrong).toEqual([]);
    });
  }

  it('tables are created only in stores/, projections/ and the event store', () => {
    const owners = ['stores/', 'projections/', 'infra/eventStore/'];
    const wrong = Object.keys(mayImport)
      .flatMap(sourcesOf)
      .filter((file) => /CREATE\s+TABLE/i.test(readFileSync(join(root, file), 'utf8')))
      .filter((file) => !owners.some((o) => file.startsWith(o)));
    expect(wrong).toEqual([]);
  });

  it('api/ writes no table: its writes are commands', () => {
    const write =
      /\.(insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\b(INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b/;
    const wrong = sourcesOf('api').filter((file) => write.test(readFileSync(join(root, file), 'utf8')));
    expect(wrong).toEqual([]);
  });

  // The reports' queries are read-only and written for their screens (2,500 lines of filters, buckets and
  // exports beside the routes that shape them); moving them under projections/reports/ is its own change.
  it('api/ holds no SQL, neither text nor query builder, but the admin reports (named exception)', () => {
    const query = /\bsql`|\.(?:selectFrom|selectNoFrom|insertInto|updateTable|deleteFrom|mergeInto|transaction)\(/;
    const wrong = sourcesOf('api')
      .filter((file) => !file.startsWith('api/admin/reports/'))
      .filter((file) => importsOf(file).includes('kysely') || query.test(readFileSync(join(root, file), 'utf8')));
    expect(wrong).toEqual([]);
  });

  it('commands read other areas only through reference data (docs/decisions/0042)', () => {
    const owners = tableOwners();
    const wrong = sourcesOf('commands')
      .filter((file) => !referenceDoors.includes(file))
      .flatMap((file) => {
        const own = ownFolders[commandAreaOf(file)];
        if (!own) return [`${file}: area ${commandAreaOf(file)} missing from ownFolders`];
        const imports = valueImportsOf(file)
          .map((spec) => relative(root, join(root, dirname(file), spec)).split(/[\\/]/))
          .filter(([layer, folder]) => (layer === 'stores' || layer === 'projections') && !own.includes(folder))
          .map((path) => `${file} → ${path.join('/')}`);
        const tables = tablesNamedIn(readFileSync(join(root, file), 'utf8'))
          .filter((t) => owners.has(t) && !own.includes(owners.get(t)!))
          .map((t) => `${file} → table ${t} (${owners.get(t)})`);
        return [...imports, ...tables];
      });
    expect([...new Set(wrong)]).toEqual([]);
  });

  it('domain/ touches no Node built-in (no I/O)', () => {
    const wrong = sourcesOf('domain').flatMap((file) =>
      importsOf(file)
        .filter((s) => s.startsWith('node:'))
        .map((s) => `${file} → ${s}`),
    );
    expect(wrong).toEqual([]);
  });
});
