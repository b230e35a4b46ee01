import ts from 'typescript';
import type { Container } from './container.js';
import { both, NONE, type Caught, type ErrorSites } from './errors.js';
import type { Sources } from './sources.js';
import { contains, exits, functionOf, isFunction, isTypeRead, literalOf, runsCode, typeTest } from './syntax.js';

/**
 * What one unit of code (a function, a class, an initializer, an argument) leads to, for the reading of a
 * route's refusals (tests/support/routeRefusals.ts): the units it names, the errors it makes, the command
 * types it sends and the members it reads, each under the condition that lets it run.
 */

/** Every group needs one of its tags: a command type sent (`MarkExternal`) or a member read (`.login`). */
export type When = string[][];
/** Where in a unit something is: under which condition, and in which member when the unit is an object. */
export interface At {
  when: When;
  member?: string;
}
export interface Info {
  /** `view`: the members an object reached as an argument can be used by (those of the parameter's type). */
  edges: (At & { to: ts.Node; caught: Caught; view?: ReadonlySet<string> })[];
  creations: (At & { kinds: string[]; ids: string[]; caught: Caught; at: ts.Node })[];
  tags: (At & { tag: string })[];
  /** Members read by name (`x.login`), each counted unless it is a library's member (a hash's `update`). */
  reads: (At & { name: string; node: ts.Node })[];
  unknown: (At & { why: string })[];
}

export interface Units {
  infoOf(unit: ts.Node): Info;
  /** Names of members that count only once read. */
  readable: ReadonlySet<string>;
  /** Whether a read is of one of our members (not a library's). */
  readsOurs(name: ts.Node): boolean;
}

const PRIMITIVE =
  ts.TypeFlags.StringLike |
  ts.TypeFlags.NumberLike |
  ts.TypeFlags.BooleanLike |
  ts.TypeFlags.BigIntLike |
  ts.TypeFlags.Null |
  ts.TypeFlags.Undefined;

// A zod schema's parse throws a ZodError, which the error mapper answers 422 ValidationError.
const THROWING_PARSE = new Set(['parse', 'parseAsync']);

export const units = (
  sources: Sources,
  errors: ErrorSites,
  ctx: Container,
  /** The defineRoute calls: typing anything inside one infers the whole call (its zod schemas), so nothing is. */
  routeCalls: ReadonlySet<ts.Node>,
): Units => {
  const { checker, isOurs, where, symbolOf, callsOf, calledOnly } = sources;
  const inRoute = (n: ts.Node) => Boolean(ts.findAncestor(n, (a) => routeCalls.has(a)));
  const infos = new Map<ts.Node, Info>();
  const readable = new Set<string>();
  const ours = new Map<ts.Node, boolean>();
  const readsOurs = (name: ts.Node) => {
    let yes = ours.get(name);
    if (yes === undefined) {
      const declarations = inRoute(name) ? [] : (checker.getSymbolAtLocation(name)?.declarations ?? []);
      ours.set(name, (yes = !declarations.length || declarations.some(isOurs)));
    }
    return yes;
  };
  /** The members an object handed to a call can be used by: its parameter's type's (an Aggregate, not the Decider). */
  const viewOf = (at: ts.Node): ReadonlySet<string> | undefined => {
    const call = at.parent;
    if (!(ts.isCallExpression(call) || ts.isNewExpression(call)) || !call.arguments?.some((a) => a === at)) return;
    const type = inRoute(at) ? undefined : checker.getContextualType(at as ts.Expression);
    if (!type || type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) || type.isTypeParameter()) return;
    const names = checker
      .getNonNullableType(type)
      .getProperties()
      .map((p) => p.name);
    return names.length ? new Set(names) : undefined;
  };

  const infoOf = (unit: ts.Node): Info => {
    const known = infos.get(unit);
    if (known) return known;
    const info: Info = { edges: [], creations: [], tags: [], reads: [], unknown: [] };
    infos.set(unit, info);
    // What the catches around the code being read take (a `try` here, or a wrapper's around its callback).
    let caught = NONE;
    const under = (c: Caught, read: () => void) => {
      const before = caught;
      caught = both(before, c);
      read();
      caught = before;
    };
    let member: string | undefined;
    const reach = (to: ts.Node | undefined, when: When, view?: ReadonlySet<string>) =>
      to && info.edges.push({ to, when, member, caught, view });
    const unknown = (why: string, when: When) => info.unknown.push({ member, why, when });

    const reachParameter = (param: ts.ParameterDeclaration, at: ts.Node, when: When) => {
      const fn = param.parent;
      if (contains(unit, fn)) return; // handed by a caller this route reaches, whose code is read
      // A function around the route (a route factory's `run`): what its callers pass.
      const i = fn.parameters.indexOf(param);
      const calls = callsOf(fn);
      for (const call of calls)
        for (const a of call.arguments?.slice(i, param.dotDotDotToken ? undefined : i + 1) ?? []) reach(a, when);
      const type = checker.getTypeAtLocation(param);
      const opaque =
        type.getProperties().some((p) => ctx.memberOf(p)) ||
        type.flags & PRIMITIVE ||
        !(type.symbol?.declarations ?? []).some(isOurs);
      if (!calls.length && !opaque) unknown(`${where(at)}: who passes ${param.getText()}`, when);
    };
    const reachDeclaration = (d: ts.Declaration, at: ts.Node, when: When) => {
      if (!isOurs(d)) return;
      let binding: ts.Node = d;
      while (ts.isBindingElement(binding) || ts.isObjectBindingPattern(binding) || ts.isArrayBindingPattern(binding))
        binding = binding.parent;
      if (ts.isParameter(binding)) return reachParameter(binding, at, when);
      if (contains(unit, d)) return; // read with this unit
      if (ts.isVariableDeclaration(d) || ts.isBindingElement(d)) {
        const v = ts.findAncestor(d, ts.isVariableDeclaration)!;
        const loop = v.parent.parent;
        if (v.initializer)
          reach(v.initializer, when, ts.isObjectLiteralExpression(v.initializer) ? viewOf(at) : undefined);
        else if (ts.isForOfStatement(loop) || ts.isForInStatement(loop)) reach(loop.expression, when);
      } else if (ts.isPropertyAssignment(d)) reach(d.initializer, when);
      else if (isFunction(d) || ts.isClassDeclaration(d) || ts.isPropertyDeclaration(d)) reach(d, when);
      else if (ts.isSourceFile(d)) unknown(`${where(at)}: a module read as a whole`, when);
    };
    const readContainer = (m: ts.Node | undefined, when: When) => {
      for (const value of m ? ctx.fillingsOf(m) : []) reach(value, when);
    };
    /** Every member of what `e` is: read by a key computed at run time. */
    const readAll = (e: ts.Expression, when: When) => {
      for (const p of checker.getTypeAtLocation(e).getProperties()) info.tags.push({ member, tag: `.${p.name}`, when });
    };

    /** A switch on a command's type: a case runs for the types that lead to it (falling through included). */
    const visitCases = (n: ts.SwitchStatement, when: When) => {
      visit(n.expression, when);
      let group: string[] | null = [];
      for (const clause of n.caseBlock.clauses) {
        if (ts.isDefaultClause(clause)) group = null;
        else if (group) {
          const tag = literalOf(clause.expression);
          group = tag === undefined ? null : [...group, tag];
        }
        clause.statements.forEach((s) => visit(s, group ? [...when, group] : when));
        if (exits(clause.statements[clause.statements.length - 1])) group = [];
      }
    };
    /** After `if (c.type === 'A') return …`, the rest of a block runs for the command's other types. */
    const visitBlock = (n: ts.Block, when: When) => {
      let rest = when;
      for (const statement of n.statements) {
        visit(statement, rest);
        const test = ts.isIfStatement(statement) && !statement.elseStatement && typeTest(statement.expression);
        if (!test || !exits((statement as ts.IfStatement).thenStatement)) continue;
        const type = checker.getTypeAtLocation(test.read);
        const all = (type.isUnion() ? type.types : [type]).map((p) => (p.isStringLiteral() ? p.value : undefined));
        if (all.every((a) => a !== undefined))
          rest = [...rest, (all as string[]).filter((a) => !test.tags.includes(a))];
      }
    };
    /**
     * A member of an object counts once something reads it (a module's `routes` is not the store's
     * business), unless the object is a library's to read (its type is the library's, or any key), or holds
     * nothing that runs (a row).
     */
    const visitObject = (n: ts.ObjectLiteralExpression, when: When) => {
      const holdsCode =
        !inRoute(n) &&
        n.properties.some(
          (m) =>
            runsCode(m) ||
            ts.isShorthandPropertyAssignment(m) ||
            (ts.isPropertyAssignment(m) && ts.isIdentifier(m.initializer)),
        );
      const type = holdsCode ? checker.getContextualType(n) : undefined;
      const declared = type && checker.getNonNullableType(type);
      for (const m of n.properties) {
        const name = m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : undefined;
        const property = name === undefined ? undefined : declared?.getProperty(name);
        const waits =
          holdsCode &&
          name !== undefined &&
          (!declared || Boolean(property?.declarations?.length && property.declarations.every(isOurs)));
        if (n === unit) member = name;
        if (!waits) visit(m, when);
        else {
          const group = [`.${name}`];
          const before = [info.edges.length, info.creations.length, info.unknown.length, info.tags.length].join();
          visit(m, [...when, group]);
          const after = [info.edges.length, info.creations.length, info.unknown.length, info.tags.length].join();
          // A member that leads nowhere need not wait for its read.
          if (before === after && !runsCode(m))
            for (const item of [...info.tags, ...info.reads]) item.when = item.when.filter((g) => g !== group);
          else readable.add(name!);
        }
        if (n === unit) member = undefined;
      }
    };
    const visitCall = (n: ts.CallExpression | ts.NewExpression, when: When): boolean => {
      const made = errors.made(n);
      if (made) {
        const { kind, id } = made;
        if ('unknown' in id || 'unknown' in kind)
          unknown(`${where(n)}: ${'unknown' in id ? id.unknown : (kind as { unknown: string }).unknown}`, when);
        // A parameter still: the identifiers come from the callers of this maker, where they are counted.
        else if ('values' in kind && 'values' in id)
          info.creations.push({ member, kinds: kind.values, ids: id.values, when, caught, at: n });
      }
      if (!ts.isCallExpression(n) || !ts.isIdentifier(n.expression)) return false;
      const d = symbolOf(n.expression)?.declarations?.[0];
      const fn = functionOf(d);
      // A default is used where an argument is left out (visibleOrder's orderNotFound, not cancel's CancelError).
      if (fn && isOurs(fn) && !n.arguments.some(ts.isSpreadElement) && calledOnly(fn))
        for (const p of fn.parameters.slice(n.arguments.length)) if (p.initializer) reach(p.initializer, when);
      const callbacks = errors.callbacksCaught(d);
      if (!callbacks.size) return false;
      visit(n.expression, when);
      n.arguments.forEach((a, i) => under(callbacks.get(i) ?? NONE, () => visit(a, when)));
      return true;
    };

    const visit = (n: ts.Node, when: When): void => {
      if (ts.isTypeNode(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n) || ts.isImportDeclaration(n))
        return;
      if (ts.isSwitchStatement(n) && isTypeRead(n.expression)) return visitCases(n, when);
      const test = ts.isIfStatement(n) && typeTest(n.expression);
      if (test) {
        const s = n as ts.IfStatement;
        visit(s.expression, when);
        visit(s.thenStatement, [...when, test.tags]);
        if (s.elseStatement) visit(s.elseStatement, when);
        return;
      }
      if (ts.isBlock(n)) return visitBlock(n, when);
      if (ts.isObjectLiteralExpression(n)) return visitObject(n, when);
      if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name) && n.name.text === 'type') {
        const i = n.initializer;
        for (const e of ts.isConditionalExpression(i) ? [i.whenTrue, i.whenFalse] : [i]) {
          const tag = literalOf(e);
          if (tag !== undefined) info.tags.push({ member, tag, when });
        }
      }
      if (ts.isParameter(n) && n.initializer && calledOnly(n.parent)) return visit(n.name, when);
      if (ts.isTryStatement(n) && n.catchClause) {
        under(errors.caughtBy(n.catchClause), () => visit(n.tryBlock, when));
        visit(n.catchClause, when);
        if (n.finallyBlock) visit(n.finallyBlock, when);
        return;
      }
      if (ts.isElementAccessExpression(n) && !ts.isStringLiteralLike(n.argumentExpression)) readAll(n.expression, when);
      if (ts.isForInStatement(n)) readAll(n.expression, when);
      if (ts.isCallExpression(n) && /^Object\.(values|entries)$/.test(n.expression.getText()) && n.arguments[0])
        readAll(n.arguments[0], when);
      if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && visitCall(n, when)) return;
      if (ts.isPropertyAccessExpression(n)) {
        visit(n.expression, when);
        const name = n.name.text;
        info.reads.push({ member, name, node: n.name, when });
        if (!ctx.names.has(name) && !THROWING_PARSE.has(name)) return;
        const s = checker.getSymbolAtLocation(n.name);
        readContainer(ctx.memberOf(s), when);
        if (THROWING_PARSE.has(name) && s?.declarations?.some((d) => d.getSourceFile().fileName.includes('/zod/')))
          info.creations.push({ member, kinds: ['unprocessable'], ids: ['ValidationError'], when, caught, at: n });
        return;
      }
      if (ts.isBindingElement(n) && ts.isObjectBindingPattern(n.parent)) {
        const name = n.propertyName ?? n.name;
        if (ts.isIdentifier(name)) {
          info.tags.push({ member, tag: `.${name.text}`, when });
          if (ctx.names.has(name.text))
            readContainer(ctx.memberOf(checker.getTypeAtLocation(n.parent).getProperty(name.text)), when);
        }
      }
      if (ts.isIdentifier(n)) {
        const named = (n.parent as { name?: ts.Node }).name === n && !ts.isShorthandPropertyAssignment(n.parent);
        if (!named) for (const d of symbolOf(n)?.declarations ?? []) reachDeclaration(d, n, when);
        return;
      }
      ts.forEachChild(n, (c) => visit(c, when));
    };
    visit(unit, []);
    return info;
  };

  return { infoOf, readable, readsOurs };
};
