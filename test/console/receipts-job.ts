import { Injectable } from '@nestjs/common';
import { Process, Processor, UnrecoverableError } from '@berth/jobs';

/** The queue of the console test's job. */
export const RECEIPTS_QUEUE = 'console-receipts';

/** What the job does, decided by the test: receipts listed in `broken` fail for good; the others are recorded. */
export const receiptsWorld = {
  broken: new Set<string>(),
  record: async (_receiptId: string): Promise<void> => undefined,
};

/** A product job that fails for good (into the dead letters) while its template is missing. */
@Injectable()
@Processor({ queueName: RECEIPTS_QUEUE })
export class SendReceiptJob {
  @Process(SendReceiptJob.name)
  async handle({ receiptId }: { receiptId: string }): Promise<void> {
    if (receiptsWorld.broken.has(receiptId)) throw new UnrecoverableError(`receipt template missing for ${receiptId}`);
    await receiptsWorld.record(receiptId);
  }
}
