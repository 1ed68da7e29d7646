/**
 * Issue 12: the CLI prints provider- and customer-controlled strings (event ids and types from signed webhooks,
 * handler errors quoting Stripe) with terminal control characters escaped, so listing the inbox cannot clear the
 * operator's screen, retitle the terminal, hide text or forge output lines.
 */
import type { InboxEventDocument } from '@berth/inbox';
import { inboxRow, startInboxCronsEnv, type InboxCronsEnv } from './support';

let env: InboxCronsEnv;

beforeAll(async () => {
  env = await startInboxCronsEnv({ name: 'inbox_cli_controls', consumer: false });
});
afterAll(async () => {
  await env?.stop();
});

/** ESC, BEL, CR, the 8-bit CSI, DEL and a bidi override: none may reach the terminal raw. */
const RAW_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function row(eventId: string, type: string, lastError: string): InboxEventDocument {
  return inboxRow('stripe', eventId, type, {
    receivedAt: new Date('2030-01-01T00:00:00Z'),
    payload: '{}',
    subject: 'webhooks.stripe.x',
    attempts: 2,
    lastError,
    lastAttemptAt: new Date('2030-01-01T00:01:00Z'),
  });
}

describe('berth webhooks list', () => {
  beforeAll(async () => {
    await env.inbox.events.insertMany([
      row('evt_\u001b]0;owned\u0007', 'invoice.paid\u001b[2J', 'Error: \u009b31mred\u001b[0m'),
      row('evt_forged\nstripe  evt_fake  invoice.paid', 'customer\u202eevil', 'Error: \u007fdel'),
    ]);
  });

  it('escapes control characters in the table, and keeps one line per event', async () => {
    const { code, out } = await env.berth('webhooks', 'list');
    expect(code).toBe(0);
    expect(out).not.toMatch(RAW_CONTROLS);
    expect(out).toContain('evt_\\x1b]0;owned\\x07');
    expect(out).toContain('invoice.paid\\x1b[2J');
    expect(out).toContain('customer\\u202eevil');
    expect(out.split('\n').filter((line) => line.startsWith('stripe'))).toHaveLength(2);
  });

  it('escapes them in --json output too, which stays valid JSON with the exact strings', async () => {
    const { code, out } = await env.berth('webhooks', 'list', '--json');
    expect(code).toBe(0);
    expect(out).not.toMatch(RAW_CONTROLS);
    const listed = JSON.parse(out) as { events: { eventId: string; lastError: string }[] };
    expect(listed.events.map((event) => event.eventId).sort()).toEqual(
      ['evt_\u001b]0;owned\u0007', 'evt_forged\nstripe  evt_fake  invoice.paid'].sort(),
    );
    expect(listed.events.map((event) => event.lastError)).toContain('Error: \u009b31mred\u001b[0m');
  });

  it('escapes them in free-text answers', async () => {
    const { out, err } = await env.berth('webhooks', 'redeliver', 'stripe', 'evt_\u001b]0;owned\u0007');
    expect(`${out}${err}`).not.toMatch(RAW_CONTROLS);
    expect(`${out}${err}`).toContain('\\x1b]0;owned\\x07');
  });
});
