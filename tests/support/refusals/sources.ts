import { relative } from 'node:path';
import ts from 'typescript';
import { declarationOf, nameOf } from './syntax.js';

/** The service's sources as one TypeScript program (tsconfig.json without the tests), and ways to find things in it. */
export interface Sources {
  checker: ts.TypeChecker;
  /** The service's own files (no tests, no libraries). */
  ours: ts.SourceFile[];
  /** A file of ours by its path from the root (api/route.ts). */
  file(path: string): ts.SourceFile;
  isOurs(n: ts.Node): boolean;
  /** `file:line` of a node. */
  where(n: ts.Node): string;
  /** What a name stands for, through imports. */
  symbolOf(n: ts.Node): ts.Symbol | undefined;
  /** Every call of a function, found by name and checked by symbol. */
  callsOf(fn: ts.Node): (ts.CallExpression | ts.NewExpression)[];
  /** Calls by the name they call (a method's by its own name). */
  callsNamed(name: string): (ts.CallExpression | ts.NewExpression)[];
  /** Whether a function is only ever called by its name (never handed on), so its callers are all its uses. */
  calledOnly(fn: ts.Node): boolean;
}

export const readSources = (root: string): Sources => {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}/tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const names = config.fileNames.filter((f) => !/\.test\.ts$|\/tests\/|vitest\.config/.test(f));
  const program = ts.createProgram(names, config.options);
  const checker = program.getTypeChecker();
  const ours = names.map((f) => program.getSourceFile(f)!);
  const mine = new Set(ours);
  const byPath = new Map(ours.map((sf) => [relative(root, sf.fileName), sf]));

  const symbolOf = (n: ts.Node) => {
    const s =
      ts.isShorthandPropertyAssignment(n.parent) && n.parent.name === n
        ? checker.getShorthandAssignmentValueSymbol(n.parent)
        : checker.getSymbolAtLocation(n);
    return s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
  };

  const calls = new Map<string, (ts.CallExpression | ts.NewExpression)[]>();
  const identifiers = new Map<string, ts.Identifier[]>();
  const index = (n: ts.Node) => {
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const callee = ts.isPropertyAccessExpression(n.expression) ? n.expression.name : n.expression;
      if (ts.isIdentifier(callee)) calls.set(callee.text, [...(calls.get(callee.text) ?? []), n]);
    }
    if (ts.isIdentifier(n)) identifiers.set(n.text, [...(identifiers.get(n.text) ?? []), n]);
    ts.forEachChild(n, index);
  };
  ours.forEach(index);

  const isCallOf = (id: ts.Identifier) =>
    (ts.isCallExpression(id.parent) || ts.isNewExpression(id.parent)) && id.parent.expression === id;
  const called = new Map<ts.Node, boolean>();

  return {
    checker,
    ours,
    file: (path) => byPath.get(path)!,
    isOurs: (n) => mine.has(n.getSourceFile()),
    where: (n) => {
      const sf = n.getSourceFile();
      return `${relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
    },
    symbolOf,
    callsNamed: (name) => calls.get(name) ?? [],
    callsOf: (fn) => {
      const decl = declarationOf(fn);
      const name = nameOf(decl);
      return (name === undefined ? [] : (calls.get(name) ?? [])).filter((call) => {
        const callee = ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
        return symbolOf(callee)?.declarations?.includes(decl as ts.Declaration);
      });
    },
    calledOnly: (fn) => {
      const decl = declarationOf(fn);
      const name = nameOf(decl);
      if (name === undefined) return false;
      let only = called.get(decl);
      if (only === undefined) {
        only = (identifiers.get(name) ?? []).every(
          (id) =>
            id === (decl as { name?: ts.Node }).name ||
            ts.isImportSpecifier(id.parent) ||
            ts.isExportSpecifier(id.parent) ||
            isCallOf(id) ||
            symbolOf(id)?.declarations?.[0] !== decl,
        );
        called.set(decl, only);
      }
      return only;
    },
  };
};
