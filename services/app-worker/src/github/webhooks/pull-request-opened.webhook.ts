import { OnWebhook, WebhookProcessor, type ReceivedWebhook } from '@berth/webhook-handlers';
import { PullRequestActivityService, type PullRequestPayload } from '../pull-request-activity.service';

// GitHub's pull request events, as the gateway's `github` preset stores them: type `<X-GitHub-Event>.<action>`,
// id the X-GitHub-Delivery. Safe to run twice: it overwrites one document per pull request.
@WebhookProcessor({ provider: 'github' })
export class PullRequestOpenedWebhook {
  constructor(private readonly activity: PullRequestActivityService) {}

  @OnWebhook(['pull_request.opened', 'pull_request.reopened'])
  async handle(event: ReceivedWebhook<PullRequestPayload>): Promise<void> {
    await this.activity.recordOpened(event.body, event.id);
  }
}
