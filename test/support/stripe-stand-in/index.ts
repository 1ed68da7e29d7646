export { StripeStandIn } from './stripe-stand-in';
export type { RecordedRequest, StripeStandInOptions } from './stripe-stand-in';
export {
  customerObject,
  deletedCustomerObject,
  subscriptionObject,
  disputeObject,
  refundObject,
  earlyFraudWarningObject,
} from './fixtures';
export type { StripeObject, SubscriptionItemFields } from './fixtures';
