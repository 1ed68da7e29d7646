export { pathRefusal } from './path-refusal';
export type { PathRefusal } from './path-refusal';
export { createRouter, httpGuard } from './guard';
export type { GuardedRoutes, GuardRefusal, HttpGuard, HttpGuardOptions, RouteAccess } from './guard';
