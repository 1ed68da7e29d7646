import type { ReceivedMessage } from '@berth/messaging';
import { PoisonMessageError } from '../../errors';
import type { JetStreamQueueWorkerOptions } from './job-messages';

/**
 * The poison limit's bookkeeping: how many deliveries of a message a worker ended (the delivery ledger,
 * `berth_job_deliveries`), so a redelivery whose earlier deliveries were not all ended counts the workers it took down.
 */
export class DeliveryChecks {
  /** Deliveries of a message ended by a worker before this one (read from the ledger on a redelivery). */
  private readonly endedBefore = new WeakMap<ReceivedMessage, number>();

  constructor(private readonly options: JetStreamQueueWorkerOptions) {}

  /** Throws {@link PoisonMessageError} when workers died `poisonLimit` times holding this message. */
  async assertNotPoison(message: ReceivedMessage, stream: string): Promise<void> {
    if (message.deliveryCount === 1) {
      this.endedBefore.set(message, 0);
      return;
    }
    let ended: number;
    try {
      ended = await this.options.infrastructure.deliveries.endedDeliveries(this.delivered(message, stream));
    } catch (error) {
      this.options.logger.warn(
        { err: error },
        'Could not read how often this message was delivered; not checking its poison limit',
      );
      return;
    }
    this.endedBefore.set(message, ended);
    const deaths = message.deliveryCount - 1 - ended;
    if (deaths >= this.options.settings.poisonLimit) throw new PoisonMessageError(deaths);
    if (deaths > 0)
      this.options.logger.warn(
        { deaths, deliveryCount: message.deliveryCount },
        `A worker died ${deaths} time(s) while holding this message`,
      );
  }

  async recordEnded(message: ReceivedMessage, stream: string): Promise<void> {
    const delivered = this.delivered(message, stream);
    const before =
      this.endedBefore.get(message) ??
      (message.deliveryCount === 1 ? 0 : await this.options.infrastructure.deliveries.endedDeliveries(delivered));
    await this.options.infrastructure.deliveries.recordEnded(delivered, before + 1);
  }

  forgetDeliveries(message: ReceivedMessage, stream: string): void {
    if (message.deliveryCount === 1) return;
    this.options.infrastructure.deliveries
      .forget(this.delivered(message, stream))
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error },
          'Could not drop the delivery count of a settled message; it expires on its own',
        ),
      );
  }

  delivered(message: ReceivedMessage, stream: string): { queue: string; stream: string; streamSequence: number } {
    return { queue: this.options.queue, stream, streamSequence: message.streamSequence };
  }
}
