// 405 for a known path called with a method it does not serve. The answer comes from the
// not-found handler of the scope, which looks the path up among the scope's known paths:
// registering a 405 route per path and missing method instead doubled Fastify's routes (about
// 1,000 route-methods), and building them was much of a cold start.

/** Methods a known path answers with 405 when it does not serve them (TRACE included: never served). */
const allMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'] as const;

export interface WrongMethod {
  /** The methods the path serves, for the `Allow` header. */
  allow: string[];
  /** The same without HEAD, for the reason. */
  named: string[];
}

/**
 * Answers, for a request's method and URL, the methods its path serves when the path is known and
 * the method is not one of them; null otherwise (an unknown path, or a method outside HTTP's
 * usual eight, stays the scope's not-found answer).
 */
export type WrongMethodLookup = (method: string, url: string) => WrongMethod | null;

export interface WrongMethods {
  lookup: WrongMethodLookup;
  /**
   * Paths whose missing methods another route takes: `DELETE /admin/state/export` matches
   * `DELETE /admin/state/:name`. Only a route of their own answers these 405 (Fastify prefers a
   * static route to a parametric one), so the scope registers one for each.
   */
  shadowed: { path: string; methods: string[]; served: WrongMethod }[];
}

interface KnownPath extends WrongMethod {
  methods: Set<string>;
}

const isParametric = (path: string) => /[:*]/.test(path);

/** A route path's pattern: `:name` is one segment, `*` the rest. */
function pattern(path: string): RegExp {
  const segments = path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return new RegExp(`^${segments.join('/')}$`);
}

const segmentsOf = (path: string) => path.split('/').length;

/** The path of a request URL as the router compares it: without the query, percent-decoded. */
function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  const raw = end === -1 ? url : url.slice(0, end);
  try {
    return decodeURI(raw);
  } catch {
    return raw;
  }
}

export function wrongMethods(methodsByPath: Map<string, Set<string>>): WrongMethods {
  const exact = new Map<string, KnownPath>();
  const patterns: { pattern: RegExp; segments: number; rest: boolean; known: KnownPath }[] = [];
  for (const [path, methods] of methodsByPath) {
    const allow = allMethods.filter((method) => methods.has(method));
    const known = { methods, allow, named: allow.filter((method) => method !== 'HEAD') };
    if (isParametric(path))
      patterns.push({ pattern: pattern(path), segments: segmentsOf(path), rest: path.endsWith('*'), known });
    else exact.set(path, known);
  }
  const find = (path: string) => exact.get(path) ?? patterns.find((entry) => entry.pattern.test(path))?.known;

  const shadowed: WrongMethods['shadowed'] = [];
  for (const [path, known] of exact) {
    // Each pattern is tried once per path (not once per method): this runs at every start.
    // A pattern without `*` matches only paths of as many segments: most are never compiled here.
    const segments = segmentsOf(path);
    const matching = patterns.filter(
      (entry) =>
        (entry.rest ? segments >= entry.segments - 1 : segments === entry.segments) && entry.pattern.test(path),
    );
    if (!matching.length) continue;
    const taken = allMethods.filter(
      (method) => !known.methods.has(method) && matching.some((entry) => entry.known.methods.has(method)),
    );
    if (taken.length) shadowed.push({ path, methods: taken, served: known });
  }

  const isHttpMethod = (method: string): boolean => (allMethods as readonly string[]).includes(method);
  const lookup: WrongMethodLookup = (method, url) => {
    if (!isHttpMethod(method)) return null;
    const known = find(pathOf(url));
    if (!known || known.methods.has(method)) return null;
    return { allow: known.allow, named: known.named };
  };
  return { lookup, shadowed };
}
