export { createBillingSyncApp, defaultOwner, BILLING_SYNC_CONSUMER } from './app';
export type { BillingSyncAppOptions } from './app';
export { loadConfig, billingSyncEnvSchema } from './config';
export type { BillingSyncConfig } from './config';
export { noopBillingSyncHooks } from './hooks';
export type { BillingSyncHooks } from './hooks';
export { memberLimitHooks, BILLING_QUEUE, APPLY_WORKSPACE_MEMBER_LIMIT_JOB } from './member-limit-hooks';
export type { JobProducer } from './member-limit-hooks';

export { createStripeClient, stripeHostOptions } from './stripe/create-stripe-client';
export { ensureBillingSyncIndexes } from './indexes';
export { billingCollections, BILLING_COLLECTION_NAMES } from './workspaces/collections';
export type { WorkspaceBilling, WorkspaceDocument, StripeObjectDocument } from './workspaces/collections';
export type { SubscriptionSummary, BillingStatus } from './sync/subscription-summary';
export { DEFAULT_HEALTH_PORT } from './config';
