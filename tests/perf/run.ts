import { readdirSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `npm run bench [-- name… --flag…]`: runs tests/perf/<name>.bench.ts (each exports `run()`), or every bench
 * present when none is named.
 */
const dir = dirname(fileURLToPath(import.meta.url));
const suffix = '.bench.ts';
const present = readdirSync(dir)
  .filter((f) => f.endsWith(suffix))
  .map((f) => f.slice(0, -suffix.length))
  .sort();

const main = async () => {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  // Flags (--split …) go to every chosen bench; the other words name benches.
  const flags = args.filter((a) => a.startsWith('--'));
  const asked = args.filter((a) => !a.startsWith('--'));
  const unknown = asked.filter((n) => !present.includes(n));
  if (unknown.length > 0) {
    console.error(`Unknown bench ${unknown.join(', ')}; present: ${present.join(', ')}`);
    process.exit(1);
  }
  const chosen = asked.length > 0 ? asked : present;
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${availableParallelism()} cpus, node ${process.version}`);
  for (const name of chosen) {
    console.log(`\n== ${name} ==`);
    const mod = (await import(pathToFileURL(join(dir, name + suffix)).href)) as {
      run: (flags: string[]) => Promise<void>;
    };
    await mod.run(flags);
  }
};

main().then(
  // A bench leaves no work behind, but a stray pool timer must not keep the process alive.
  () => process.exit(0),
  (err) => {
    console.error('bench failed:', err);
    process.exit(1);
  },
);
