import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ensureConsoleBuilt } from './consoleBrowser.js';

/**
 * The console's first load stays light (issue 31: under 150 KB of compressed JavaScript): the entry
 * script and the chunks index.html preloads, as the service sends them (gzip, the larger of its two
 * encodings). Each area's screens are chunks of their own, loaded when opened.
 */
const DIST = join(import.meta.dirname, '../../console/dist');

it('sends under 150 KB of compressed JavaScript on the first load', () => {
  ensureConsoleBuilt();
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  expect(scripts.length).toBeGreaterThan(0);
  const bytes = scripts.reduce((sum, s) => sum + statSync(join(DIST, `${s}.gz`)).size, 0);
  console.log(`console first load: ${(bytes / 1024).toFixed(1)} KB of gzip JavaScript in ${scripts.length} files`);
  expect(bytes).toBeLessThan(150 * 1024);
});
