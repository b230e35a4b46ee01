// The root `prepare` script (npm ci, npm install): builds the console into console/dist, so that a fresh
// clone's `npm ci && npm start` serves /console with no other step. A production-only install
// (--omit=dev) has no Vite and keeps whatever build it was given (the Docker image builds in its own stage).
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
let vite;
try {
  vite = await import(createRequire(`${root}/package.json`).resolve('vite'));
} catch {
  console.log('console: Vite is not installed (production install); the console is not rebuilt');
  process.exit(0);
}
await vite.build({ root, configFile: `${root}/vite.config.ts`, logLevel: 'warn' });
// Brotli and gzip copies of the scripts and styles, which the service sends to browsers that accept them
// (api/consoleStatic.ts): compressed once here rather than on every request.
const { readdirSync, readFileSync, writeFileSync } = await import('node:fs');
const { brotliCompressSync, gzipSync, constants } = await import('node:zlib');
const assets = `${root}/dist/assets`;
for (const name of readdirSync(assets).filter((n) => /\.(js|css)$/.test(n))) {
  const bytes = readFileSync(`${assets}/${name}`);
  writeFileSync(
    `${assets}/${name}.br`,
    brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
  writeFileSync(`${assets}/${name}.gz`, gzipSync(bytes, { level: 9 }));
}
console.log('console: built into console/dist');
