/** The seeds' inbox table (seed 000: `webhookEvent`, one unique key per provider and event id), in PostgreSQL. */
export const PEER_INBOX_SCHEMA = `
CREATE TABLE webhook_event (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  provider text NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  abandoned_at timestamptz,
  UNIQUE (provider, event_id)
);
CREATE INDEX webhook_event_processed_received ON webhook_event (processed_at, received_at);
`;

/** The BullMQ queue of the peer's webhook jobs. */
export const PEER_E2E_QUEUE = 'webhook-events';
