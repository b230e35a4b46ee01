import ts from 'typescript';

/** The shapes of code the reading of a route's refusals (tests/support/routeRefusals.ts) recognises. */

export const isFunction = (n: ts.Node): n is ts.SignatureDeclaration & { body?: ts.Node } =>
  ts.isFunctionDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n);

/** The declaration a function is known by: its const, its property, or itself. */
export const declarationOf = (fn: ts.Node): ts.Node =>
  (ts.isVariableDeclaration(fn.parent) || ts.isPropertyAssignment(fn.parent)) && fn.parent.initializer === fn
    ? fn.parent
    : fn;

/** The function a declaration names, if it names one. */
export const functionOf = (d: ts.Node | undefined) => {
  const fn = d && (ts.isVariableDeclaration(d) ? d.initializer : d);
  return fn && isFunction(fn) ? fn : undefined;
};

export const nameOf = (d: ts.Node): string | undefined => {
  const name = (d as { name?: ts.Node }).name;
  return name && ts.isIdentifier(name) ? name.text : undefined;
};

export const contains = (outer: ts.Node, inner: ts.Node) =>
  outer.getSourceFile() === inner.getSourceFile() && outer.pos <= inner.pos && inner.end <= outer.end;

export const unparen = (e: ts.Expression): ts.Expression =>
  ts.isParenthesizedExpression(e) ? unparen(e.expression) : e;

/** Whether control never runs past a statement (a case clause that does not fall into the next one). */
export const exits = (s: ts.Statement | undefined): boolean =>
  s !== undefined &&
  (ts.isReturnStatement(s) ||
    ts.isThrowStatement(s) ||
    ts.isBreakStatement(s) ||
    ts.isContinueStatement(s) ||
    (ts.isBlock(s) && exits(s.statements[s.statements.length - 1])) ||
    (ts.isIfStatement(s) && exits(s.thenStatement) && exits(s.elseStatement)));

/** Whether reading a member can run anything (a function, a call): a row's `status` cannot. */
export const runsCode = (n: ts.Node): boolean =>
  isFunction(n) || ts.isCallExpression(n) || ts.isNewExpression(n) || Boolean(ts.forEachChild(n, runsCode));

export const literalOf = (e: ts.Expression): string | undefined =>
  ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) ? e.text : undefined;

export const isTypeRead = (e: ts.Expression) => ts.isPropertyAccessExpression(e) && e.name.text === 'type';

/** `c.type === 'A' || c.type === 'B'` → ['A', 'B'] and the `c.type` it reads; anything else → undefined. */
export const typeTest = (e: ts.Expression): { tags: string[]; read: ts.Expression } | undefined => {
  e = unparen(e);
  if (!ts.isBinaryExpression(e)) return undefined;
  const op = e.operatorToken.kind;
  if (op === ts.SyntaxKind.BarBarToken) {
    const l = typeTest(e.left);
    const r = typeTest(e.right);
    return l && r ? { tags: [...l.tags, ...r.tags], read: l.read } : undefined;
  }
  if (op !== ts.SyntaxKind.EqualsEqualsEqualsToken && op !== ts.SyntaxKind.EqualsEqualsToken) return undefined;
  const [read, other] = isTypeRead(e.left) ? [e.left, e.right] : [e.right, e.left];
  const tag = isTypeRead(read) ? literalOf(other) : undefined;
  return tag === undefined ? undefined : { tags: [tag], read };
};

/** `err.kind === 'conflict' || err.code === 'Conflict'` → `kind:conflict`, `id:Conflict`; undefined for anything else. */
export const errorsNamedBy = (e: ts.Expression, err: string): string[] | undefined => {
  e = unparen(e);
  if (!ts.isBinaryExpression(e)) return undefined;
  if (e.operatorToken.kind === ts.SyntaxKind.BarBarToken) {
    const l = errorsNamedBy(e.left, err);
    const r = errorsNamedBy(e.right, err);
    return l && r ? [...l, ...r] : undefined;
  }
  if (e.operatorToken.kind !== ts.SyntaxKind.EqualsEqualsEqualsToken || !ts.isStringLiteral(e.right)) return undefined;
  const field = e.left.getText();
  if (field === `${err}.kind`) return [`kind:${e.right.text}`];
  return field === `${err}.code` ? [`id:${e.right.text}`] : undefined;
};
