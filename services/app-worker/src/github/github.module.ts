import { Module } from '@nestjs/common';
import { PullRequestActivityService } from './pull-request-activity.service';
import { PullRequestOpenedWebhook } from './webhooks/pull-request-opened.webhook';

/** The GitHub feature of the worker: the webhooks of a connected GitHub App (provider `github` of the gateway). */
@Module({ providers: [PullRequestActivityService, PullRequestOpenedWebhook] })
export class GithubModule {}
