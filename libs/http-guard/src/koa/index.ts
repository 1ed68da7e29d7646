export { createRouter, httpGuard } from './guard';
export type { GuardedRoutes, HttpGuard, HttpGuardOptions, RouteAccess } from './guard';
