/**
 * The subject of a verified webhook: `webhooks.<provider>.<type tokens>`. Defined once in `@berth/contract`, where the
 * inbox's requeue takes it too, so a republished event lands where the gateway first stored it.
 */
export { eventTypeToSubjectTokens, webhookSubject } from '@berth/contract';
