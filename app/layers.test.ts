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

  it('api/ holds no SQL text, but the report queries that wait to move to projections/reports/ (#32)', () => {
    const wrong = sourcesOf('api')
      .filter((file) => !file.startsWith('api/admin/reports/'))
      .filter((file) => importsOf(file).includes('kysely') || /\bsql`/.test(readFileSync(join(root, file), 'utf8')));
    expect(wrong).toEqual([]);
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
