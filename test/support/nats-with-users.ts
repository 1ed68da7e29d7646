/**
 * A nats-server for a cross-service test, with Berth's NATS users (deploy/nats/auth.conf verbatim, fresh random
 * passwords), as compose and Kubernetes run it: each service, and each stand-in for one (product code as the
 * app-worker, tools as the operator), connects with its own user's URL. {@link NatsWithUsers.stop} fails when the
 * server logged a permission violation while it ran.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsServer, type NatsServerHandle, type NatsServerOptions } from '@berth/local-infra';
import { authConfOptions, natsUrlAs, permissionViolations, type NatsUser } from '../../deploy/local/nats-users';
import { randomNatsPasswords } from '../security/support/nats-users';

export interface NatsWithUsers {
  /** The server; its `url` carries no credentials (nothing connects without a user). */
  readonly server: NatsServerHandle;
  /** The server's URL with `user`'s credentials. */
  urlAs(user: NatsUser): string;
  /** The permission violations the server logged so far. */
  violations(): Promise<string[]>;
  /** Stops the server; rejects, once it is stopped, when it logged a permission violation. */
  stop(): Promise<void>;
}

/** Starts nats-server with the users of deploy/nats/auth.conf; its log goes to `logFile` (a temporary one by default). */
export async function startNatsWithUsers(
  options: Omit<NatsServerOptions, 'extraConfig' | 'configVariables'>,
): Promise<NatsWithUsers> {
  const passwords = randomNatsPasswords('hex');
  const logDir = options.logFile ? undefined : await mkdtemp(join(tmpdir(), 'berth-nats-users-log-'));
  const logFile = options.logFile ?? join(logDir!, 'nats-server.log');
  const server = await startNatsServer({ ...options, logFile, ...authConfOptions(passwords) }).catch(
    async (error: unknown) => {
      if (logDir) await rm(logDir, { recursive: true, force: true });
      throw error;
    },
  );
  const violations = async (): Promise<string[]> =>
    permissionViolations(await readFile(logFile, 'utf8').catch(() => ''));
  let stopped = false;
  return {
    server,
    urlAs: (user) => natsUrlAs(server.url, user, passwords[user]),
    violations,
    async stop() {
      if (stopped) return;
      stopped = true;
      const found = await violations();
      await server.stop();
      if (logDir) await rm(logDir, { recursive: true, force: true });
      if (found.length > 0)
        throw new Error(`nats-server logged ${found.length} permission violation(s):\n${found.join('\n')}`);
    },
  };
}
