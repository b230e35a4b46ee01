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
console.log('console: built into console/dist');
