import type { Router } from 'express';

/** The methods defined for each path of a router (Express paths), for its OPTIONS answers. */
const methodsByPath = new WeakMap<Router, Map<string, Set<string>>>();

/**
 * Whether `template` (an Express path) names `segments`, and how: one flag per segment, true where the
 * template has a literal there. Null when it does not match.
 */
const literalsWhere = (template: string, segments: string[]): boolean[] | null => {
  const parts = template.split('/').filter(Boolean);
  if (parts.length !== segments.length) return null;
  const literals = parts.map((p) => !p.startsWith(':'));
  return parts.every((p, i) => !literals[i] || p.toLowerCase() === segments[i].toLowerCase()) ? literals : null;
};

/** Literal segments win over parameters, from the left: /notifications/read-all is not a notification's id. */
const moreLiteral = (a: boolean[], b: boolean[]): boolean => {
  const i = a.findIndex((x, k) => x !== b[k]);
  return i >= 0 && a[i];
};

/**
 * The methods the resource at this path answers (those defined for the path that names it most literally,
 * with HEAD beside GET and OPTIONS itself), or null when no defined path names it.
 */
const allowedMethods = (paths: Map<string, Set<string>>, path: string): string[] | null => {
  const segments = path.split('/').filter(Boolean);
  let best: { literals: boolean[]; methods: Set<string> } | null = null;
  for (const [template, methods] of paths) {
    const literals = literalsWhere(template, segments);
    if (literals && (!best || moreLiteral(literals, best.literals))) best = { literals, methods };
  }
  if (!best) return null;
  const methods = [...best.methods].map((m) => m.toUpperCase());
  return [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort();
};

/**
 * Records that `method` is defined for `path` on this router, which then answers OPTIONS for its defined
 * paths (204 with `Allow`). Express would list the methods of every route whose pattern matches the path,
 * the /{id} sibling's included, where the resource answers only its own.
 */
export const answerOptionsFor = (router: Router, path: string, method: string): void => {
  let paths = methodsByPath.get(router);
  if (!paths) {
    const defined = (paths = new Map<string, Set<string>>());
    methodsByPath.set(router, defined);
    router.use((req, res, next) => {
      const allow = req.method === 'OPTIONS' ? allowedMethods(defined, req.path) : null;
      if (!allow) return next();
      res.set('Allow', allow.join(', ')).status(204).end();
    });
  }
  paths.set(path, (paths.get(path) ?? new Set()).add(method));
};
