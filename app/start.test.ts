import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm start` (app/start.mjs) runs a bundle of the sources, on a project of two files of its own: what a
 * developer edits is what runs, and an unchanged tree is not bundled again.
 */
describe('npm start runs the bundled sources', () => {
  let project: string;
  const start = (...args: string[]) =>
    execFileSync(process.execPath, ['app/start.mjs', ...args], { cwd: project, encoding: 'utf8' });
  const word = (w: string) =>
    writeFileSync(
      join(project, 'app/word.ts'),
      `export const word: string = '${w}';\nexport const fail = (): never => {\n  throw new Error('boom');\n};\n`,
    );
  const currentBundle = () => JSON.parse(readFileSync(join(project, '.bundle/current.json'), 'utf8')).id;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'start-'));
    mkdirSync(join(project, 'app'));
    copyFileSync('app/start.mjs', join(project, 'app/start.mjs'));
    symlinkSync(resolve('node_modules'), join(project, 'node_modules'));
    writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(project, 'app/main.ts'),
      "import { fail, word } from './word.js';\nconsole.log(word);\ntry {\n  fail();\n} catch (err) {\n" +
        '  console.log((err as Error).stack);\n}\n',
    );
    word('one');
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('runs the sources, with stack traces naming the .ts file and line', () => {
    const out = start();
    expect(out.split('\n')[0]).toBe('one');
    expect(out).toContain(`${join(project, 'app/word.ts')}:3:`);
  });

  it('runs an edit, even one whose file is dated before the bundle', () => {
    word('two');
    const past = new Date(Date.now() - 86_400_000);
    utimesSync(join(project, 'app/word.ts'), past, past);
    expect(start().split('\n')[0]).toBe('two');
  });

  it('bundles an unchanged tree once', () => {
    const before = currentBundle();
    expect(start().split('\n')[0]).toBe('two');
    expect(currentBundle()).toBe(before);
  });

  it('--bundle (npm ci) brings the bundle up to date without running it', () => {
    word('three');
    expect(start('--bundle')).toBe('');
    expect(start().split('\n')[0]).toBe('three');
  });
});
