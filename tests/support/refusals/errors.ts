import ts from 'typescript';
import type { Sources } from './sources.js';
import { declarationOf, errorsNamedBy, exits, functionOf, isFunction, nameOf, unparen } from './syntax.js';

/**
 * Where DomainErrors are made and where they are caught, for the reading of a route's refusals
 * (tests/support/routeRefusals.ts).
 */

/** What a kind or identifier argument is: literals, a parameter of the function around it, or unknown. */
export type Values = { values: string[] } | { param: number; of: ts.SignatureDeclaration } | { unknown: string };
interface Maker {
  kind: Values;
  id: Values;
}

/** DomainErrors a `catch` on the way takes: '*' for all, `kind:conflict`, `id:Conflict`. */
export type Caught = ReadonlySet<string>;
export const NONE: Caught = new Set();
const ALL: Caught = new Set(['*']);
export const swallows = (c: Caught, kind: string, id: string) =>
  c.has('*') || c.has(`kind:${kind}`) || c.has(`id:${id}`);
/** Caught by either of two catches around each other. */
export const both = (a: Caught, b: Caught): Caught => (!a.size ? b : !b.size ? a : new Set([...a, ...b]));
/** Caught on each of two ways to the same code. */
export const either = (a: Caught, b: Caught): Caught =>
  a.has('*') ? b : b.has('*') ? a : new Set([...a].filter((x) => b.has(x)));

export interface ErrorSites {
  /** The kind and identifier a call makes an error with, when it makes one. */
  made(call: ts.CallExpression | ts.NewExpression): { kind: Values; id: Values } | undefined;
  caughtBy(clause: ts.CatchClause): Caught;
  /** For a function that calls some of its parameters only inside a `try`: what that catch takes, by index. */
  callbacksCaught(d: ts.Node | undefined): Map<number, Caught>;
}

export const errorSites = ({ checker, ours, file, isOurs, symbolOf }: Sources): ErrorSites => {
  const domainError = file('domain/errors.ts').statements.find(
    (s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === 'DomainError',
  )!;
  // The class, and every function that passes its own parameters on to a maker (conflict(id, …), a route's
  // orderId(params, 'OrderNotFound')), found to a fixpoint.
  const makers = new Map<ts.Node, Maker>();
  const makerNames = new Set<string>();
  const addMaker = (key: ts.Node, maker: Maker) => {
    makers.set(key, maker);
    const name = nameOf(key);
    if (name) makerNames.add(name);
  };
  const constructor = domainError.members.find(ts.isConstructorDeclaration)!;
  addMaker(domainError, { kind: { param: 0, of: constructor }, id: { param: 1, of: constructor } });

  /** Whether a class's `super` is DomainError's constructor (directly or through a subclass). */
  const extendsError = (c: ts.ClassLikeDeclaration): boolean =>
    (c.heritageClauses ?? []).some((h) =>
      h.types.some((t) =>
        symbolOf(t.expression)?.declarations?.some(
          (d) => d === domainError || (ts.isClassDeclaration(d) && extendsError(d)),
        ),
      ),
    );
  const valuesOf = (e: ts.Expression | undefined): Values => {
    if (!e) return { unknown: 'an argument left out' };
    if (ts.isStringLiteralLike(e)) return { values: [e.text] };
    if (ts.isIdentifier(e)) {
      const d = symbolOf(e)?.declarations?.[0];
      if (d && ts.isParameter(d) && isFunction(d.parent))
        return { param: d.parent.parameters.indexOf(d), of: d.parent };
    }
    const type = checker.getTypeAtLocation(e);
    const parts = type.isUnion() ? type.types : [type];
    if (parts.every((p) => p.isStringLiteral())) return { values: parts.map((p) => (p as ts.StringLiteralType).value) };
    return { unknown: `${e.getText()} is not a literal` };
  };
  const makerOf = (call: ts.CallExpression | ts.NewExpression): Maker | undefined => {
    if (call.expression.kind === ts.SyntaxKind.SuperKeyword) {
      const cls = ts.findAncestor(call, ts.isClassLike);
      return cls && extendsError(cls) ? makers.get(domainError) : undefined;
    }
    const callee = ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
    // Only a maker's name is worth resolving (a query's `.execute()` is none).
    if (!ts.isIdentifier(callee) || !makerNames.has(callee.text)) return undefined;
    const d = symbolOf(callee)?.declarations?.[0];
    return d && makers.get(d);
  };
  const made = (call: ts.CallExpression | ts.NewExpression) => {
    const maker = makerOf(call);
    const argument = (v: Values) => ('param' in v ? valuesOf(call.arguments?.[v.param]) : v);
    return maker && { kind: argument(maker.kind), id: argument(maker.id) };
  };
  const findMakers = (n: ts.Node): boolean => {
    let grew = false;
    const making = (ts.isCallExpression(n) || ts.isNewExpression(n)) && made(n);
    if (making) {
      const fn = 'of' in making.id ? making.id.of : 'of' in making.kind ? making.kind.of : undefined;
      const key = fn && (ts.isConstructorDeclaration(fn) ? fn.parent : declarationOf(fn));
      if (key && !makers.has(key)) {
        addMaker(key, making);
        grew = true;
      }
    }
    ts.forEachChild(n, (c) => void (grew = findMakers(c) || grew));
    return grew;
  };
  while (ours.map(findMakers).some(Boolean));

  const isDomainErrorTest = (e: ts.Expression, err: string): boolean =>
    ts.isBinaryExpression(e) &&
    e.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword &&
    e.left.getText() === err &&
    symbolOf(e.right)?.declarations?.[0] === domainError;

  /**
   * What a catch takes for good: everything when it never throws what it caught; all DomainErrors after
   * `if (!(err instanceof DomainError)) throw err`; those named by `if (err instanceof DomainError && …)`
   * exits before a last `throw err`. Anything else it may pass on.
   */
  const caughtBy = (clause: ts.CatchClause): Caught => {
    const name = clause.variableDeclaration?.name;
    if (!name) return ALL;
    if (!ts.isIdentifier(name)) return NONE;
    const err = name.text;
    const rethrows: ts.ThrowStatement[] = [];
    const find = (n: ts.Node): void => {
      if (ts.isThrowStatement(n) && unparen(n.expression).getText() === err) rethrows.push(n);
      if (!isFunction(n)) ts.forEachChild(n, find);
    };
    find(clause.block);
    if (!rethrows.length) return ALL;
    if (rethrows.length > 1) return NONE;
    const [rethrow] = rethrows;
    const guard = rethrow.parent;
    if (ts.isIfStatement(guard) && guard.thenStatement === rethrow && !guard.elseStatement) {
      const test = unparen(guard.expression);
      if (ts.isPrefixUnaryExpression(test) && test.operator === ts.SyntaxKind.ExclamationToken)
        return isDomainErrorTest(unparen(test.operand), err) ? ALL : NONE;
    }
    const statements = clause.block.statements;
    if (statements[statements.length - 1] !== rethrow) return NONE;
    const taken = new Set<string>();
    for (const s of statements.slice(0, -1)) {
      if (!ts.isIfStatement(s) || s.elseStatement || !exits(s.thenStatement)) continue;
      const test = unparen(s.expression);
      if (isDomainErrorTest(test, err)) taken.add('*');
      else if (
        ts.isBinaryExpression(test) &&
        test.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken &&
        isDomainErrorTest(unparen(test.left), err)
      )
        errorsNamedBy(test.right, err)?.forEach((x) => taken.add(x));
    }
    return taken;
  };

  // onOrder(run, refusal) calls `run` only inside a try whose catch turns an order's refusal into its own.
  const wrappers = new Map<ts.Node, Map<number, Caught>>();
  const callbacksCaught = (d: ts.Node | undefined): Map<number, Caught> => {
    const fn = functionOf(d);
    if (!fn || !isOurs(fn)) return new Map();
    let byIndex = wrappers.get(fn);
    if (byIndex) return byIndex;
    wrappers.set(fn, (byIndex = new Map()));
    fn.parameters.forEach((param, i) => {
      if (!ts.isIdentifier(param.name)) return;
      const name = param.name.text;
      // What every use takes: a use that is no call inside a try hands the function on, and takes nothing.
      let taken: Caught | undefined;
      const find = (n: ts.Node): void => {
        if (ts.isIdentifier(n) && n.text === name && n !== param.name && symbolOf(n)?.declarations?.[0] === param) {
          let c = NONE;
          if (ts.isCallExpression(n.parent) && n.parent.expression === n)
            for (let at: ts.Node = n; at !== fn; at = at.parent)
              if (ts.isTryStatement(at.parent) && at.parent.tryBlock === at && at.parent.catchClause)
                c = both(c, caughtBy(at.parent.catchClause));
          taken = taken ? either(taken, c) : c;
        }
        ts.forEachChild(n, find);
      };
      find(fn);
      if (taken?.size) byIndex.set(i, taken);
    });
    return byIndex;
  };

  return { made, caughtBy, callbacksCaught };
};
