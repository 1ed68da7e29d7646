import { Inject } from '@nestjs/common';

/** The Nest injection token of a queue's `MessageQueueService`: `app.get(getMessageQueueToken('cron-queue'))`. */
export function getMessageQueueToken(queueName: string): string {
  return `BerthMessageQueue:${queueName}`;
}

/** Injects the `MessageQueueService` of a queue declared in `MessageQueueModule.forRoot({ queues })`. */
export function InjectMessageQueue(queueName: string): ParameterDecorator & PropertyDecorator {
  return Inject(getMessageQueueToken(queueName));
}
