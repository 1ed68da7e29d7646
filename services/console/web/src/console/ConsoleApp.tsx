import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, getToken, setToken } from '../api';
import { ActionDialog, ActionNotice, usePendingAction, type PendingAction } from '../components/ActionDialog';
import { Link, useLocation } from '../router';
import { AuditPage } from './AuditPage';
import { EventPage } from './EventPage';
import { EndpointPage } from './EndpointPage';
import { EventsPage } from './EventsPage';
import { IssuesPage } from './IssuesPage';
import { JobsPage } from './JobsPage';
import { OutboundPage } from './OutboundPage';
import { OverviewPage } from './OverviewPage';
import { ErrorAlert } from '../components/ErrorAlert';
import type { Me } from '../../../src/api/contract';

/** What every page gets: who is signed in, and a way to run an action (previewed, then confirmed). */
export interface PageProps {
  me: Me;
  act: (action: PendingAction, then?: (result: unknown) => void) => void;
}

const PAGES = [
  { path: '/', label: 'Overview' },
  { path: '/events', label: 'Webhook events' },
  { path: '/jobs', label: 'Jobs' },
  { path: '/outbound', label: 'Outbound' },
  { path: '/issues', label: 'Issues' },
  { path: '/audit', label: 'Audit' },
];

/** The console: sign in with a token, then the pages, each a link in the side navigation. */
export function ConsoleApp() {
  const [me, setMe] = useState<Me | null>(null);
  const [checked, setChecked] = useState(false);
  useEffect(() => {
    if (!getToken('berth-console-token')) {
      setChecked(true);
      return;
    }
    api<Me>('berth-console-token', '/api/me')
      .then(setMe, () => setToken('berth-console-token', null))
      .finally(() => setChecked(true));
  }, []);
  if (!checked) return null;
  if (!me) return <SignIn onSignedIn={setMe} />;
  return (
    <Shell
      me={me}
      onSignOut={() => {
        setToken('berth-console-token', null);
        setMe(null);
      }}
    />
  );
}

function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [token, setTokenText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setToken('berth-console-token', token.trim());
    try {
      const me = await api<Me>('berth-console-token', '/api/me');
      if (me.actor.role === 'issuer')
        throw new ApiError(
          403,
          'forbidden',
          'an issuer token only mints portal links; sign in with a viewer or operator token',
        );
      onSignedIn(me);
    } catch (failure) {
      setToken('berth-console-token', null);
      setError((failure as Error).message);
    }
  };
  return (
    <main className="sign-in">
      <h1>Berth console</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label htmlFor="token">Console token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          value={token}
          onChange={(event) => setTokenText(event.target.value)}
          required
        />
        <p className="hint">Kept in this tab only. Ask whoever runs Berth for a viewer or operator token.</p>
        <ErrorAlert error={error} />
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}

function Shell({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const { path } = useLocation();
  const { act, notice, clearNotice, dialog } = usePendingAction();
  const props: PageProps = { me, act };
  // A notice belongs to the page its action ran on: moving to another page drops it.
  useEffect(() => clearNotice(), [path, clearNotice]);
  const current = PAGES.filter((page) => (page.path === '/' ? path === '/' : path.startsWith(page.path))).at(-1);
  useEffect(() => {
    document.title = `${current?.label ?? 'Berth'} · Berth console`;
  }, [current]);
  const eventMatch = /^\/events\/([^/]+)\/(.+)$/.exec(path);
  const endpointMatch = /^\/outbound\/endpoints\/(.+)$/.exec(path);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Berth console</span>
        <span className="who">
          Signed in as <strong>{me.actor.name}</strong> ({me.actor.role})
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Pages" className="side">
        <ul>
          {PAGES.map((page) => (
            <li key={page.path}>
              <Link to={page.path} aria-current={current?.path === page.path ? 'page' : undefined}>
                {page.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <ActionNotice notice={notice} />
        {path === '/' && <OverviewPage {...props} />}
        {path === '/events' && <EventsPage {...props} />}
        {eventMatch && (
          <EventPage
            {...props}
            provider={decodeURIComponent(eventMatch[1])}
            eventId={decodeURIComponent(eventMatch[2])}
          />
        )}
        {path.startsWith('/jobs') && <JobsPage {...props} />}
        {endpointMatch && <EndpointPage {...props} endpointId={decodeURIComponent(endpointMatch[1])} />}
        {path.startsWith('/outbound') && !endpointMatch && <OutboundPage {...props} />}
        {path === '/issues' && <IssuesPage {...props} />}
        {path === '/audit' && <AuditPage {...props} />}
      </main>
      <ActionDialog slot="berth-console-token" base="/api/actions" {...dialog} />
    </div>
  );
}

/** Operators see actions; viewers see why not. */
export function canAct(me: Me): boolean {
  return me.actor.role === 'operator';
}
