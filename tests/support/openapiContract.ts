import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Checks each response an e2e test receives against the served OpenAPI 3.1 document: the operation is
 * found by method and path template, the status must be one it declares (not just `default`), and a JSON
 * body must match that status's schema. 429 and 503 must carry Retry-After. A mismatch throws, which
 * fails the test that made the request, with the operation, status, errors and body in the message.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** Served beside the API but not operations of it. */
const OUTSIDE_THE_DOCUMENT = new Set(['/openapi.json', '/asyncapi.json', '/health', '/ready']);

interface Operation {
  pointer: string;
  operationId?: string;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
  operations: Record<string, Operation>;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export interface ContractChecker {
  check(method: string, url: string, status: number, headers: Headers, body: unknown, text: string): void;
}

export const createContractChecker = (doc: { paths: Record<string, Record<string, Operation>> }): ContractChecker => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'openapi');
  const routes: Route[] = Object.entries(doc.paths).map(([template, item]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: (template.match(/\{/g) ?? []).length,
    operations: Object.fromEntries(
      Object.entries(item).map(([method, op]) => [
        method,
        { ...op, pointer: `openapi#/paths/${escapePointer(template)}/${method}` },
      ]),
    ),
  }));
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (ref: string) => {
    let v = validators.get(ref);
    if (!v) validators.set(ref, (v = ajv.compile({ $ref: ref })));
    return v;
  };

  /**
   * An OPTIONS answer is the router's, not an operation's: its `Allow` lists exactly the documented methods
   * of the path that names the resource most literally (with HEAD beside GET, and OPTIONS).
   */
  const checkAllow = (rel: string, status: number, headers: Headers, fail: (why: string) => never) => {
    const route = routes.filter((r) => r.pattern.test(rel)).sort((a, b) => a.params - b.params)[0];
    if (!route) return void (status === 404 || fail(`OPTIONS on a path the document does not have answered ${status}`));
    const documented = Object.keys(route.operations).map((m) => m.toUpperCase());
    const expected = [...documented, ...(documented.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort().join(', ');
    if (status !== 204 || headers.get('allow') !== expected)
      fail(`OPTIONS answered ${status} with Allow "${headers.get('allow')}", expected 204 with "${expected}"`);
  };

  return {
    check(method, url, status, headers, body, text) {
      const m = method.toLowerCase();
      const path = new URL(url).pathname;
      const where = `${method} ${path} → ${status}`;
      const fail = (why: string): never => {
        throw new Error(`OpenAPI contract: ${where}: ${why}\nbody: ${text.slice(0, 2000)}`);
      };
      if ((status === 429 || status === 503) && !headers.get('retry-after'))
        fail('a 429 or 503 must carry a Retry-After header');
      if (!path.startsWith('/api/v1/')) return;
      const rel = path.slice('/api/v1'.length);
      if (OUTSIDE_THE_DOCUMENT.has(rel)) return;
      if (m === 'options') return checkAllow(rel, status, headers, fail);
      // Literal segments win over templates, as Express resolves them (bulk-import before {stationId}).
      const route = routes.filter((r) => r.pattern.test(rel) && r.operations[m]).sort((a, b) => a.params - b.params)[0];
      if (!route) {
        if (status === 404 || status === 405) return; // probing a path or method the API does not have
        return fail('no documented operation matches this method and path');
      }
      const op = route.operations[m];
      const declared = op.responses[String(status)];
      if (!declared)
        return fail(
          `status ${status} is not documented for ${m.toUpperCase()} ` +
            `${route.template} (declared: ${Object.keys(op.responses).join(', ')})`,
        );
      const contentType = (headers.get('content-type') ?? '').split(';')[0].trim();
      if (!declared.content) {
        if (text !== '') fail('the status is documented without a body, but one was sent');
        return;
      }
      if (!declared.content[contentType])
        return fail(
          `content type "${contentType}" is not documented (declared: ${Object.keys(declared.content).join(', ')})`,
        );
      if (contentType !== 'application/json') return;
      const validate = validatorFor(`${op.pointer}/responses/${status}/content/${escapePointer(contentType)}/schema`);
      if (!validate(body)) {
        const errors = (validate.errors ?? [])
          .slice(0, 8)
          .map((e) => `  ${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
        fail(
          `the body does not match the documented schema of ${m.toUpperCase()} ` +
            `${route.template} ${status}:\n${errors.join('\n')}`,
        );
      }
    },
  };
};

const byDocument = new Map<string, ContractChecker>();

/** One checker per distinct document (a production service serves fewer paths than a test one). */
export const contractCheckerFor = async (baseUrl: string): Promise<ContractChecker> => {
  const text = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).text();
  let checker = byDocument.get(text);
  if (!checker) byDocument.set(text, (checker = createContractChecker(JSON.parse(text))));
  return checker;
};

/** On unless OPENAPI_STRICT=0. */
export const contractCheckOn = (): boolean => process.env.OPENAPI_STRICT !== '0';
