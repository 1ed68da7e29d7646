import type { ReceivedWebhook } from '../received-webhook';

/** One `@OnWebhook` method, ready to run. */
export interface RegisteredWebhookHandler {
  readonly provider: string;
  /** The event types it handles; `*` alone means every type. */
  readonly types: readonly string[];
  /** `<Class>.<method>`, for logs and errors. */
  readonly name: string;
  run(event: ReceivedWebhook): Promise<void>;
}

/** The webhook handlers of an application, by provider, as found at start-up. */
export class WebhookRegistry {
  private readonly byProvider = new Map<string, RegisteredWebhookHandler[]>();

  register(handler: RegisteredWebhookHandler): void {
    const list = this.byProvider.get(handler.provider) ?? [];
    list.push(handler);
    this.byProvider.set(handler.provider, list);
  }

  /** The providers that have at least one handler, sorted. */
  providers(): string[] {
    return [...this.byProvider.keys()].sort();
  }

  /** Every handler of `provider`, whatever the type. */
  handlersOf(provider: string): readonly RegisteredWebhookHandler[] {
    return this.byProvider.get(provider) ?? [];
  }

  /** The handlers of `provider` that handle `type`, in registration order. */
  handlersFor(provider: string, type: string): RegisteredWebhookHandler[] {
    return this.handlersOf(provider).filter((handler) => handler.types.includes('*') || handler.types.includes(type));
  }
}
