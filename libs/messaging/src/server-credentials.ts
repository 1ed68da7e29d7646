/** NATS servers with the credentials taken out of their URLs. */
export interface ServersAndCredentials {
  /** The server URLs without user or password. */
  servers: string[];
  /** The user name and password the URLs carried (every URL must carry the same, or none). */
  user?: string;
  pass?: string;
  /** A server was given as `tls://…`: the connection must be TLS (refused by a server without it). */
  tls: boolean;
}

function parseServer(server: string): URL {
  try {
    return new URL(/^[a-z]+:\/\//i.test(server) ? server : `nats://${server}`);
  } catch {
    throw new TypeError('NATS_URL holds a server that is not a URL');
  }
}

/**
 * Splits `nats://user:password@host:4222,nats://user:password@other:4222` into bare server URLs and one user and
 * password (percent-decoded), so credentials can come with `NATS_URL` like the `nats` CLI takes them, and never reach
 * a log line or a status event through the server list; `tls://` asks for TLS. Errors never repeat the URL (it may hold the password).
 * @throws TypeError when a server is not a URL, or the servers carry different credentials
 */
export function splitServerCredentials(servers: string): ServersAndCredentials {
  const urls = servers
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server.length > 0)
    .map(parseServer);
  const credentials = new Set(urls.map((url) => `${url.username}:${url.password}`));
  if (credentials.size > 1) throw new TypeError('every server in NATS_URL must carry the same user and password');
  const [user, pass] = [urls[0]?.username ?? '', urls[0]?.password ?? ''].map(decodeURIComponent);
  const bare = urls.map((url) => {
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  });
  const tls = urls.some((url) => url.protocol === 'tls:');
  return user === '' ? { servers: bare, tls } : { servers: bare, user, pass, tls };
}
