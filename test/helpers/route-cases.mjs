// The method/path cases on which the compiled route matcher must answer exactly as express's router did, built from
// the route tables (plain JavaScript: `node test/helpers/record-route-answers.mjs` records the answers with any build).
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const fill = (template, value) => template.replace(/\{\w+\}/g, value);

/** Every case as `{ method, path, body? }`; writes carry a malformed JSON body, so that no case changes the state. */
export function routeCases(services) {
  const cases = [];
  const add = (method, path, route) => {
    const body = method !== 'GET' && method !== 'DELETE' && method !== 'HEAD' && method !== 'OPTIONS' ? '{' : undefined;
    // A raw body is stored as it comes, and a form route reads other bodies: only their path and method are compared.
    if (body && route && method === route.method && (route.body === 'raw' || route.body === 'form')) return;
    cases.push({ method, path, ...(body ? { body } : {}) });
  };
  for (const service of services) {
    const base = `/${service.prefix}/api/v1`;
    const byPath = new Map();
    for (const route of service.routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    for (const [template, routes] of byPath) {
      const path = base + fill(template, 'bench-x1');
      const hasParam = template.includes('{');
      for (const route of routes) add(route.method, path, route);
      const route = routes[0];
      add('OPTIONS', path);
      if (routes.some((r) => r.method === 'GET')) {
        add('HEAD', path);
        add('GET', `${path}/`);
        add('GET', path.toUpperCase().replace('/API/V1', '/api/v1'));
        add('GET', `/api/v1${fill(template, 'bench-x1')}`);
        add('GET', `${base}/${fill(template, 'bench-x1').slice(1).replace('/', '//')}`);
      }
      const wrong = METHODS.find((m) => !routes.some((r) => r.method === m));
      if (wrong) add(wrong, path, route);
      if (hasParam) {
        add(route.method, base + fill(template, 'bench%2Dx%41'), route);
        add(route.method, base + fill(template, 'bench%E0%A4%A'), route);
        add(route.method, base + fill(template, 'a%2Fb'), route);
        if (wrong) add(wrong, base + fill(template, 'bench%E0%A4%A'), route);
      }
    }
  }
  for (const path of [
    '/api/v1',
    '/api/v1/',
    '/epr/api/v1',
    '/epr/api/v1/',
    '/epr/api/v1/nothing-here',
    '/nothing/api/v1/x',
  ])
    add('GET', path);
  add('OPTIONS', '/epr/api/v1/nothing-here');
  return cases;
}
