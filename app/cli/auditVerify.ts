import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyExport } from '../../infra/audit/exportFile.js';

/**
 * `npm run audit:verify -- FILE [--root HEX]`: checks a money stream's export offline (no database, no service):
 * recomputes every hash of the chain, then the anchor's proof (and that its root is the published one when
 * --root is given). Names the first event that does not match; exit code 1 on a break, 2 on a usage error.
 */
const main = (): number => {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { root: { type: 'string' } } });
  if (positionals.length !== 1) {
    console.error('usage: npm run audit:verify -- FILE [--root HEX]');
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(positionals[0], 'utf8');
  } catch (err) {
    console.error(`cannot read ${positionals[0]}: ${(err as Error).message}`);
    return 2;
  }
  const verdict = verifyExport(text, values.root);
  if (verdict.problem) {
    const where =
      verdict.problem.position === null
        ? ''
        : ` at revision ${verdict.problem.position}${verdict.problem.eventId ? ` (event ${verdict.problem.eventId})` : ''}`;
    console.log(`BROKEN ${verdict.stream ?? '?'}${where}: ${verdict.problem.message} [${verdict.problem.kind}]`);
    return 1;
  }
  console.log(`OK ${verdict.stream}: ${verdict.events} events, the chain verifies`);
  console.log(
    verdict.anchor
      ? `anchored: revision ${verdict.anchor.position} is in anchor ${verdict.anchor.anchorId} (${verdict.anchor.takenAt}), root ${verdict.anchor.root}`
      : 'not anchored yet: no anchor holds this stream',
  );
  return 0;
};

process.exitCode = main();
