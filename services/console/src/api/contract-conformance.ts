import type {
  PromotedJob as ServerPromotedJob,
  QueueDepth as ServerQueueDepth,
  StoredCompletedJob,
  StoredDeadLetter,
} from '@berth/jobs';
import type { DeliveryView, EndpointView } from '@berth/outbound';
import type { AuditEntry as ServerAuditEntry } from '../actions/audit-log';
import type { ActionPreview as ServerActionPreview } from '../actions/console-action';
import type { IssueWithState } from '../issues/issue-states';
import type { QueueJobs as ServerQueueJobs } from '../jobs/queue-jobs';
import type { ServiceHealth as ServerServiceHealth } from '../overview/services-health';
import type { EventDetail as ServerEventDetail } from '../webhooks/event-detail';
import type { ConsoleEventState as ServerEventState, EventRow as ServerEventRow } from '../webhooks/search-events';
import type { ConsoleRole as ServerConsoleRole } from '../auth/roles';
import type * as Contract from './contract';

/**
 * Compile-time only: each line fails the type check when what the server sends, serialized, no longer fits the
 * wire type the web reads (`contract.ts`). Unions are checked both ways, so a state added on either side is seen.
 */
type Fits<Server, Wire> = [Contract.Json<Server>] extends [Wire] ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;

export type ContractConformance = [
  Holds<Same<ServerEventState, Contract.ConsoleEventState>>,
  Holds<Same<ServerConsoleRole, Contract.ConsoleRole>>,
  Holds<Same<ServerEventDetail['attemptLog'][number]['outcome'], Contract.AttemptOutcome>>,
  Holds<Same<StoredDeadLetter['reason'], Contract.DeadLetterReason>>,
  Holds<Same<DeliveryView['status'], Contract.DeliveryStatus>>,
  Holds<Same<IssueWithState['status'], Contract.IssueStatus>>,
  Holds<Fits<ServerEventRow, Contract.EventRow>>,
  Holds<Fits<ServerEventDetail, Contract.EventDetail>>,
  Holds<Fits<ServerQueueDepth, Contract.QueueDepth>>,
  Holds<Fits<StoredDeadLetter, Contract.DeadLetter>>,
  Holds<Fits<ServerQueueJobs, Contract.QueueJobs>>,
  Holds<Fits<StoredCompletedJob, Contract.CompletedJob>>,
  Holds<Fits<ServerPromotedJob, Contract.PromotedJob>>,
  Holds<Fits<IssueWithState, Contract.Issue>>,
  Holds<Fits<ServerAuditEntry, Contract.AuditEntry>>,
  Holds<Fits<ServerActionPreview & { confirmation: string | null }, Contract.ActionPreview>>,
  Holds<Fits<EndpointView, Contract.Endpoint>>,
  Holds<Fits<DeliveryView, Contract.Delivery>>,
  Holds<Fits<ServerServiceHealth, Contract.ServiceHealth>>,
];
