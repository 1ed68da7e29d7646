/** Outbound webhooks. Exports are added per module. */
export {};
