export { pathRefusal } from './path-refusal';
export type { PathRefusal } from './path-refusal';
export { RouteTable } from './route-table';
export type { GuardRefusal, RouteDecision, TableRoute } from './route-table';
export { nodeGuard } from './node-guard';
export type {
  ListedRoute,
  NodeGuard,
  NodeGuardedRoutes,
  NodeGuardOptions,
  NodeRoute,
  NodeRouteAccess,
  NodeRouteHandler,
  RouteParams,
} from './node-guard';
