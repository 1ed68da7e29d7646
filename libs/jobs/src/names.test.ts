import {
  assertQueueName,
  deadLetterSubject,
  delayedJobSubject,
  dueJobSubject,
  jobSubject,
  parseJobSubject,
  priorityConsumerName,
  priorityFilterSubject,
  priorityJobSubject,
  queueFilterSubject,
  queueOfConsumer,
  queueOfDelayedSubject,
} from './names';

describe('job subjects', () => {
  it('builds and parses the subjects of a job', () => {
    expect(jobSubject('client-queue', 'SendClientSummaryJob')).toBe('jobs.client-queue.SendClientSummaryJob');
    expect(deadLetterSubject('client-queue', 'SendClientSummaryJob')).toBe(
      'dead.jobs.client-queue.SendClientSummaryJob',
    );
    expect(dueJobSubject('client-queue', 'SendClientSummaryJob')).toBe(
      'delayed-jobs.due.client-queue.SendClientSummaryJob',
    );
    for (const subject of ['jobs.q.Name', 'dead.jobs.q.Name', 'delayed-jobs.due.q.Name'])
      expect(parseJobSubject(subject)).toEqual({ queue: 'q', name: 'Name' });
    expect(parseJobSubject('jobs.q.Name.extra')).toBeUndefined();
    expect(parseJobSubject('webhooks.stripe.invoice')).toBeUndefined();
    expect(queueOfDelayedSubject(delayedJobSubject('q', 'job-1'))).toBe('q');
    expect(queueOfConsumer('jobs-client-queue')).toBe('client-queue');
    expect(queueOfConsumer('billing-sync')).toBeUndefined();
  });

  it("puts a priority band outside the queue's own subjects, and reads it back as the queue", () => {
    expect(priorityJobSubject('q', 3, 'Name')).toBe('jobs._p3.q.Name');
    expect(parseJobSubject(priorityJobSubject('q', 3, 'Name'))).toEqual({ queue: 'q', name: 'Name' });
    expect(priorityFilterSubject('q', 3)).toBe('jobs._p3.q.>');
    // `jobs.q.>` takes three tokens or more starting `jobs.q`: a band's subject starts `jobs._p3`.
    expect(priorityJobSubject('q', 3, 'Name').startsWith(queueFilterSubject('q').slice(0, -1))).toBe(false);
    expect(queueOfConsumer(priorityConsumerName('client-queue', 10))).toBe('client-queue');
  });

  it('refuses names that are not one subject token', () => {
    expect(() => assertQueueName('client-queue')).not.toThrow();
    for (const bad of ['', 'a.b', 'a b', '*', '>', '_private', 'a/b'])
      expect(() => assertQueueName(bad)).toThrow('Invalid queue name');
  });
});
