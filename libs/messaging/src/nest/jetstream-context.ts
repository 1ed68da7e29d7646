import { BaseRpcContext } from '@nestjs/microservices';
import type { ReceivedMessage } from '../received-message';

/** The context a Nest handler receives with `@Ctx()`: the JetStream message and its delivery facts. */
export class JetStreamContext extends BaseRpcContext<[ReceivedMessage]> {
  /** The message being handled. */
  getMessage(): ReceivedMessage {
    return this.args[0];
  }
}
