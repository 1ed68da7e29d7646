import type { Provider } from './events';

/** One system under test, end to end: a gateway in front, a store behind, consumers between. */
export interface E2eStack {
  readonly name: string;
  /** The providers it has consumers for. */
  readonly providers: readonly Provider[];
  /** The signing secrets its gateway verifies with. */
  readonly secrets: Partial<Record<Provider, string>>;
  /** The webhook URL of a provider. */
  url(provider: Provider): string;
  /** The processes whose CPU is counted, by name (read again before each measurement: restarts change pids). */
  processes(): Promise<Record<string, number>>;
  /** Inbox rows now. */
  rowCount(): Promise<number>;
  /** Adds processed rows straight into the store (not through the gateway) until it holds `rows`. */
  fillTo(rows: number): Promise<void>;
  /** Resolves when every event of `eventIds` has its processed time, with those times (epoch ms). */
  waitProcessed(provider: Provider, eventIds: string[], timeoutMs: number): Promise<Map<string, number>>;
  stop(): Promise<void>;
}

/** A background filler payload: a Stripe event of realistic size (about 1.5 KB). */
export function fillerPayload(
  subscriptionUpdated: (id: string, createdS: number) => Record<string, unknown>,
  index: number,
): string {
  return JSON.stringify(subscriptionUpdated(`evt_fill_${index}`, 1_700_000_000 + index));
}
