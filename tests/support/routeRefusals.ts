import ts from 'typescript';
import { container } from './refusals/container.js';
import { both, either, errorSites, NONE, swallows, type Caught } from './refusals/errors.js';
import { readSources } from './refusals/sources.js';
import { units, type At, type When } from './refusals/units.js';

/**
 * What each route can refuse with, read from the sources (docs/decisions/0102-a-route-answers-what-it-can-refuse-with.md):
 * from each `defineRoute` call, everything its arguments reach, down to the DomainErrors made on the way.
 *
 * - A name reaches what it is declared as (a function, a class, a constant's initializer, a loop's list).
 * - A member of the container (CommandDeps, ApiContext, AppContext, Providers) reaches what the composition
 *   root (app/) puts there: `ctx.handle` is the handler `createHandle` makes, `ctx.providers.maps` the adapter.
 * - Any other value a function is handed was made by its caller, whose code is read too; only a parameter of
 *   a function around the route (a route factory's `run`) is followed to that function's callers.
 * - A member of an object counts once the route reads a member of that name (`accounts.login`, not every
 *   method of `adminAccounts`), and an object handed to a parameter only with that parameter's type's
 *   members (loadState's Aggregate has no `decide`).
 * - A `switch` or `if` on a command's `type` reaches a case only when the route sends a command of that type
 *   (an object written with that `type`): a decider answers only for the commands it is given.
 * - An error is a `new DomainError(kind, id)` (or a subclass's `super`), or a call of a function that passes
 *   its own parameters there (`conflict(id, …)`, a route's `orderId(params, 'OrderNotFound')`), with the kind
 *   and identifier as literals or typed as unions of literals; a zod `parse` is a 422 ValidationError.
 * - A `catch` that keeps what it caught (all DomainErrors, or those of a kind or identifier it names) takes
 *   those from its `try`, and from the callbacks a wrapper calls only there (onOrder's `run`).
 *
 * What it cannot tell (an identifier typed as any ErrorId, a parameter nobody passes) it reports as unknown.
 * It reads what code can do, not what data allows: a refusal that a check just before rules out is counted.
 */

/** One way a route can fail: an error kind and identifier, and the chain of code that leads there. */
export interface Refusal {
  kind: string;
  id: string;
  via: string[];
}

export interface RouteRefusals {
  /** `file:line` of the defineRoute call. */
  route: string;
  refusals: Refusal[];
  unknown: string[];
}

/** A unit as reached: through which view (for an object), with what every way to it catches, and from where. */
interface Visit {
  unit: ts.Node;
  view?: ReadonlySet<string>;
  caught: Caught;
  from?: Visit;
}

export const routeRefusals = (root: string): RouteRefusals[] => {
  const sources = readSources(root);
  const { symbolOf, where, callsNamed, file } = sources;
  const routeModule = file('api/route.ts');
  const defineRoute = routeModule.statements
    .flatMap((s) => (ts.isVariableStatement(s) ? [...s.declarationList.declarations] : []))
    .find((d) => d.name.getText() === 'defineRoute')!;
  const routes = callsNamed('defineRoute').filter(
    (c): c is ts.CallExpression => ts.isCallExpression(c) && symbolOf(c.expression)?.declarations?.[0] === defineRoute,
  );
  // defineRoute reads every member of what it is given (guards, schemas …).
  const specMembers = routeModule.statements
    .find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'RouteSpec')!
    .members.map((m) => `.${m.name!.getText()}`);
  const { infoOf, readable, readsOurs } = units(
    sources,
    errorSites(sources),
    container(root, sources),
    new Set<ts.Node>(routes),
  );

  const holds = (when: When, tags: ReadonlySet<string>) => when.every((group) => group.some((t) => tags.has(t)));

  const refusalsOf = (route: ts.CallExpression): RouteRefusals => {
    // The command types the route sends and the members it reads, grown until reading more finds no more.
    let tags = new Set<string>(specMembers);
    for (;;) {
      const visits = new Map<ts.Node, Map<string, Visit>>();
      const sent = new Set<string>();
      const reads = new Map<string, ts.Node[]>();
      const unknown = new Set<string>();
      const arrive = (unit: ts.Node, view: ReadonlySet<string> | undefined, caught: Caught, from?: Visit) => {
        const key = view ? [...view].sort().join() : '*';
        const byView = visits.get(unit) ?? new Map<string, Visit>();
        visits.set(unit, byView);
        const was = byView.get(key);
        if (!was) {
          const v = { unit, view, caught, from };
          byView.set(key, v);
          return v;
        }
        const now = either(was.caught, caught);
        if (now.size === was.caught.size) return undefined;
        return Object.assign(was, { caught: now, from });
      };
      const runs = (item: At, v: Visit) =>
        (item.member === undefined || !v.view || v.view.has(item.member)) && holds(item.when, tags);
      // The route's arguments, not defineRoute's own checks (its 401, 403 and 422 it documents itself).
      const stack = route.arguments.map((a) => arrive(a, undefined, NONE)!);
      while (stack.length) {
        const v = stack.pop()!;
        const info = infoOf(v.unit);
        for (const t of info.tags) if (runs(t, v)) sent.add(t.tag);
        for (const r of info.reads)
          if (!tags.has(`.${r.name}`) && runs(r, v)) reads.set(r.name, [...(reads.get(r.name) ?? []), r.node]);
        for (const u of info.unknown) if (runs(u, v)) unknown.add(u.why);
        for (const e of info.edges)
          if (runs(e, v)) {
            const next = arrive(e.to, e.view, both(v.caught, e.caught), v);
            if (next) stack.push(next);
          }
      }
      for (const [name, nodes] of reads) if (readable.has(name) && nodes.some(readsOurs)) sent.add(`.${name}`);
      if (![...sent].every((t) => tags.has(t))) {
        tags = new Set([...tags, ...sent]);
        continue;
      }

      const viaOf = (v: Visit) => {
        const via: string[] = [];
        for (let at: Visit | undefined = v; at; at = at.from) via.unshift(where(at.unit));
        return [where(route), ...via];
      };
      const refusals = new Map<string, Refusal>();
      for (const byView of visits.values())
        for (const v of byView.values())
          for (const c of infoOf(v.unit).creations)
            if (runs(c, v))
              for (const kind of c.kinds)
                for (const id of c.ids)
                  if (!swallows(both(v.caught, c.caught), kind, id) && !refusals.has(`${kind} ${id}`))
                    refusals.set(`${kind} ${id}`, { kind, id, via: [...viaOf(v), where(c.at)] });
      return { route: where(route), refusals: [...refusals.values()], unknown: [...unknown] };
    }
  };

  return routes.map(refusalsOf);
};
