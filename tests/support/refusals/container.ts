import { relative } from 'node:path';
import ts from 'typescript';
import type { Sources } from './sources.js';

/**
 * The dependencies a route is built with (ctx): interfaces whose members the composition root (app/) fills.
 * What a route reaches through `ctx.handle` or `ctx.providers.maps` is what app/ puts there.
 */
const CONTAINERS = new Set(['CommandDeps', 'ApiContext', 'AppContext', 'Providers']);
const COMPOSITION_ROOT = 'app/';

export interface Container {
  /** Names worth asking the checker about: a member's (it must type the object to answer). */
  names: ReadonlySet<string>;
  /** The container member a symbol is, if it is one. */
  memberOf(s: ts.Symbol | undefined): ts.Node | undefined;
  /** What is put in a member: the expressions assigned to it. */
  fillingsOf(member: ts.Node): readonly ts.Expression[];
}

export const container = (root: string, { checker, ours }: Sources): Container => {
  const isMember = (d: ts.Node) =>
    (ts.isPropertySignature(d) || ts.isMethodSignature(d)) &&
    ts.isInterfaceDeclaration(d.parent) &&
    CONTAINERS.has(d.parent.name.text);
  const memberOf = (s: ts.Symbol | undefined) => s?.declarations?.find(isMember);

  const names = new Set<string>();
  const collect = (n: ts.Node) => {
    if (ts.isInterfaceDeclaration(n) && CONTAINERS.has(n.name.text))
      for (const m of n.members) if (m.name && ts.isIdentifier(m.name)) names.add(m.name.text);
    ts.forEachChild(n, collect);
  };
  ours.forEach(collect);

  const filled = new Map<ts.Node, ts.Expression[]>();
  const fill = (member: ts.Node | undefined, value: ts.Expression) => {
    if (member) filled.set(member, [...(filled.get(member) ?? []), value]);
  };
  // `ctx.providers.maps = …` anywhere; the context object itself in the composition root.
  const find = (n: ts.Node, inRoot: boolean) => {
    if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      n.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
      ts.isPropertyAccessExpression(n.left) &&
      names.has(n.left.name.text)
    )
      fill(memberOf(checker.getSymbolAtLocation(n.left.name)), n.right);
    if (inRoot && ts.isObjectLiteralExpression(n)) {
      const type = checker.getContextualType(n) ?? checker.getTypeAtLocation(n);
      for (const p of n.properties)
        if ((ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && ts.isIdentifier(p.name))
          fill(memberOf(type.getProperty(p.name.text)), ts.isPropertyAssignment(p) ? p.initializer : p.name);
    }
    ts.forEachChild(n, (c) => find(c, inRoot));
  };
  for (const sf of ours) find(sf, relative(root, sf.fileName).startsWith(COMPOSITION_ROOT));

  return { names, memberOf, fillingsOf: (member) => filled.get(member) ?? [] };
};
