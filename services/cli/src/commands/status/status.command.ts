import type { Command } from '../../command';
import { formatJson, formatTable, truncate } from '../../output';
import { readMeshStatus, type MeshStatus } from './read-status';

/** `berth status [--json]`: exit 0 when every service is ready, 1 otherwise. */
export const statusCommand: Command = {
  path: [],
  usage: '[--json]',
  description:
    "Every service's (and replica's) readiness, each consumer's lag, on a JetStream cluster each node's leaderships and followers' lag, and the age of the oldest unprocessed webhook event, on one screen",
  options: { json: { type: 'boolean' } },
  async run({ values }, context) {
    const status = await readMeshStatus({
      targets: context.health,
      source: context.source,
      messaging: context.messaging,
      db: context.db,
    });
    context.stdout.write(values.json === true ? formatJson(status) : formatStatus(status));
    return status.healthy ? 0 : 1;
  },
};

function formatAge(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** The one-screen text form. */
export function formatStatus(status: MeshStatus): string {
  const parts: string[] = [`Berth (${status.source}): ${status.healthy ? 'healthy' : 'NOT HEALTHY'}\n`];
  parts.push(
    status.services.length === 0
      ? 'Services: none known (set BERTH_HEALTH_URLS=name=url,… or run npm start, which writes them to .data/berth-local.json)\n'
      : formatTable(
          ['SERVICE', 'STATE', 'URL', 'DETAIL'],
          status.services.map((service) => [service.name, service.state, service.url, truncate(service.detail, 60)]),
        ),
  );
  if ('error' in status.consumers) parts.push(`Consumers: could not read NATS: ${status.consumers.error}\n`);
  else if (status.consumers.length === 0) parts.push('Consumers: none yet\n');
  else
    parts.push(
      formatTable(
        ['STREAM', 'CONSUMER', 'LAG', 'PENDING', 'ACK PENDING', 'REDELIVERED', 'PULLING'],
        status.consumers.map((c) => [
          c.stream,
          c.consumer,
          c.lag,
          c.pending,
          c.ackPending,
          c.redelivered,
          c.waitingPulls > 0 ? 'yes' : 'no',
        ]),
      ),
    );
  if ('error' in status.cluster) parts.push(`JetStream cluster: could not read: ${status.cluster.error}\n`);
  else if (status.cluster.clustered) {
    const { cluster } = status;
    parts.push(
      formatTable(
        ['NODE', 'LEADS STREAMS', 'LEADS CONSUMERS', 'FOLLOWS (LAG IN OPS)'],
        cluster.nodes.map((node) => [
          node.node,
          node.leads.join(' ') || '-',
          node.leadsConsumers,
          truncate(
            node.follows
              .map(
                (follow) =>
                  `${follow.stream}:${follow.offline ? 'offline' : follow.current ? follow.lagOps : `behind ${follow.lagOps}`}`,
              )
              .join(' ') || '-',
            80,
          ),
        ]),
      ),
    );
    const leaderless = cluster.streams.filter((stream) => !stream.leader).map((stream) => stream.stream);
    if (leaderless.length > 0)
      parts.push(`Streams without a leader (election or lost quorum): ${leaderless.join(' ')}\n`);
  }
  if ('error' in status.inbox) parts.push(`Inbox: could not read MongoDB: ${status.inbox.error}\n`);
  else {
    const { inbox } = status;
    const oldest =
      inbox.oldestUnprocessed && inbox.oldestUnprocessedAgeSeconds !== null
        ? `oldest ${formatAge(inbox.oldestUnprocessedAgeSeconds)} (${inbox.oldestUnprocessed.provider} ${inbox.oldestUnprocessed.eventId})`
        : 'none waiting';
    parts.push(`Inbox: ${inbox.unprocessed} unprocessed, ${inbox.setAside} set aside; ${oldest}\n`);
  }
  return parts.join('\n');
}
