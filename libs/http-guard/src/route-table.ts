import { pathRefusal, type PathRefusal } from './path-refusal';

/** Why the guard refused a request before any route ran. */
export type GuardRefusal =
  | { readonly status: 404; readonly reason: PathRefusal | 'no-route' | 'other-spelling' }
  | { readonly status: 405; readonly reason: 'method-not-allowed'; readonly allow: readonly string[] };

/** One route as the table decides on it: the expression its router matches with, and what it leads to. */
export interface TableRoute<Target> {
  /** Index of the route's group: who may reach it. */
  readonly group: number;
  /** Methods the route takes, upper case. */
  readonly methods: readonly string[];
  /** The expression the router itself matches with (case-sensitive, strict). */
  readonly regexp: RegExp;
  readonly target: Target;
}

/**
 * What {@link RouteTable.decide} found: a route (its group decides next), or a refusal. `allowed` is false when the
 * path's route takes other methods only; that is answered 405 with `refusal`, after the group's access check.
 */
export type RouteDecision<Target> =
  | {
      readonly kind: 'route';
      readonly route: TableRoute<Target>;
      readonly allowed: true;
      /** The groups the route's expression captured in the path (its parameters, still encoded). */
      readonly captures: readonly (string | undefined)[];
    }
  | {
      readonly kind: 'route';
      readonly route: TableRoute<Target>;
      readonly allowed: false;
      readonly refusal: GuardRefusal & { status: 405 };
    }
  | { readonly kind: 'refused'; readonly refusal: GuardRefusal };

/** `decodeURIComponent`, or the text unchanged where it is not well-formed percent-encoding. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface Entry<Target> {
  readonly route: TableRoute<Target>;
  /** The route's own expression, case-insensitive: how a lenient router (and an unwary path check) would read it. */
  readonly lenient: RegExp;
}

/**
 * The guard's decision, whatever serves the routes (Koa or Node's own server): for a method and a raw path (no
 * query), the route that will answer, or why none may.
 * 1. a path not in its canonical spelling ({@link pathRefusal}) is refused with 404;
 * 2. the route is the first whose own expression matches (routes in group order); a request that a lenient reading
 *    (any case, percent-decoded) would send to another route, or that no route takes, is refused with 404:
 *    `/API/x` is never an unguarded twin of `/api/x`;
 * 3. a path whose route takes other methods only is found with `allowed: false` and the 405 to answer.
 */
export class RouteTable<Target> {
  private readonly entries: readonly Entry<Target>[];

  constructor(routes: readonly TableRoute<Target>[]) {
    this.entries = routes.map((route) => ({ route, lenient: new RegExp(route.regexp.source, 'i') }));
  }

  /** The routes, in the order they are tried. */
  get routes(): readonly TableRoute<Target>[] {
    return this.entries.map((entry) => entry.route);
  }

  decide(method: string, path: string): RouteDecision<Target> {
    const refusal = pathRefusal(path);
    if (refusal) return { kind: 'refused', refusal: { status: 404, reason: refusal } };
    const upper = method.toUpperCase();
    const exact = this.firstMatch(path, upper, false);
    const lenient = this.firstMatch(safeDecode(path), upper, true);
    if (!exact) return { kind: 'refused', refusal: { status: 404, reason: lenient ? 'other-spelling' : 'no-route' } };
    if (lenient?.entry !== exact.entry) return { kind: 'refused', refusal: { status: 404, reason: 'other-spelling' } };
    const route = exact.entry.route;
    if (exact.methodMatches) return { kind: 'route', route, allowed: true, captures: exact.captures };
    const allow = new Set(
      this.entries.filter((entry) => entry.route.regexp.test(path)).flatMap((entry) => entry.route.methods),
    );
    return {
      kind: 'route',
      route,
      allowed: false,
      refusal: { status: 405, reason: 'method-not-allowed', allow: [...allow] },
    };
  }

  /**
   * The first entry whose expression matches `path` for `method`, else the first matching `path` alone, with what
   * the expression captured.
   */
  private firstMatch(
    path: string,
    method: string,
    lenient: boolean,
  ): { entry: Entry<Target>; methodMatches: boolean; captures: readonly (string | undefined)[] } | undefined {
    let pathOnly: { entry: Entry<Target>; methodMatches: false; captures: readonly (string | undefined)[] } | undefined;
    for (const entry of this.entries) {
      const match = (lenient ? entry.lenient : entry.route.regexp).exec(path);
      if (match === null) continue;
      const captures = match.slice(1);
      if (entry.route.methods.includes(method)) return { entry, methodMatches: true, captures };
      pathOnly ??= { entry, methodMatches: false, captures };
    }
    return pathOnly;
  }
}
