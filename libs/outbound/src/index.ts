/** Outbound webhooks. Exports are added per module. */
export {};
export * from './delivery';
