import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where deploy/local/install-tools.sh puts nats-server, nats and ferretdb unless BERTH_TOOLS_DIR says
 * otherwise. The caller passes the environment value in; this library reads no environment itself.
 */
export function defaultToolsBinDir(toolsDirFromEnv?: string): string {
  return join(toolsDirFromEnv ?? join(homedir(), '.cache', 'berth', 'tools'), 'bin');
}
