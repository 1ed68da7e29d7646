import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, send } from './http';

type Fields = Record<string, unknown>;

/** What the control API can do to a stand-in (the `StripeStandIn` methods of the same names). */
export interface StandInControls {
  setCustomer(fields: { id: string } & Fields): void;
  deleteCustomer(id: string): void;
  setSubscriptions(customerId: string, subscriptions: ({ id: string } & Fields)[]): void;
  setDispute(fields: { id: string } & Fields): void;
  setRefund(fields: { id: string } & Fields): void;
  setEarlyFraudWarning(fields: { id: string } & Fields): void;
  setCheckoutSession(fields: { id: string } & Fields): void;
  failNext(count: number, status?: number): void;
  failAll(status?: number): void;
  recover(): void;
  setLatency(ms: number): void;
  readonly requests: readonly unknown[];
  reset(): void;
}

/**
 * The stand-in's control API, for processes other than the test (the `npm start` demo): `PUT|DELETE
 * /_stand-in/customers/:id`, `PUT /_stand-in/subscriptions/:customerId` (JSON array), `PUT
 * /_stand-in/{disputes,refunds,early_fraud_warnings,checkout_sessions}/:id`, `POST /_stand-in/failures {count?, status?, all?}`,
 * `POST /_stand-in/latency {ms}`, `GET /_stand-in/requests`, `DELETE /_stand-in/state`.
 */
export async function handleControlRequest(
  standIn: StandInControls,
  request: IncomingMessage,
  url: URL,
  response: ServerResponse,
): Promise<void> {
  const [, , resource, id] = url.pathname.split('/').map(decodeURIComponent);
  const body = request.method === 'GET' || request.method === 'DELETE' ? undefined : await readJson(request);
  const fields = body as { id: string } & Fields;
  switch (`${request.method} ${resource}`) {
    case 'PUT customers':
      standIn.setCustomer({ ...fields, id });
      break;
    case 'DELETE customers':
      standIn.deleteCustomer(id);
      break;
    case 'PUT subscriptions':
      standIn.setSubscriptions(id, body as ({ id: string } & Fields)[]);
      break;
    case 'PUT disputes':
      standIn.setDispute({ ...fields, id });
      break;
    case 'PUT refunds':
      standIn.setRefund({ ...fields, id });
      break;
    case 'PUT early_fraud_warnings':
      standIn.setEarlyFraudWarning({ ...fields, id });
      break;
    case 'PUT checkout_sessions':
      standIn.setCheckoutSession({ ...fields, id });
      break;
    case 'POST failures': {
      const { count, status, all } = (body ?? {}) as { count?: number; status?: number; all?: boolean };
      if (all) standIn.failAll(status);
      else if (count) standIn.failNext(count, status);
      else standIn.recover();
      break;
    }
    case 'POST latency':
      standIn.setLatency(Number((body as { ms?: number } | undefined)?.ms ?? 0));
      break;
    case 'GET requests':
      send(response, 200, standIn.requests);
      return;
    case 'DELETE state':
      standIn.reset();
      break;
    default:
      send(response, 404, { error: `No stand-in control ${request.method} ${url.pathname}` });
      return;
  }
  send(response, 204, undefined);
}
