/**
 * Posts pre-signed requests to a gateway on 127.0.0.1 and notes, per event, when its 200 arrived: either as fast as
 * `connections` keep-alive connections allow (closed loop), or at a fixed offered rate (open loop).
 */
import { Agent, request } from 'node:http';
import type { E2eRequest } from './events';

/** What {@link drive} saw. */
export interface DriveResult {
  /** When the first request left (epoch ms). */
  startedAt: number;
  /** Epoch ms of each event's 200, by event id. */
  okAt: Map<string, number>;
  /** Answers other than 200, by status (`error` for a failed connection). */
  failures: Record<string, number>;
}

/** Options for {@link drive}. */
export interface DriveOptions {
  url: string;
  requests: E2eRequest[];
  connections: number;
  /** Requests per second offered; unset: as fast as the connections allow. */
  rate?: number;
}

function post(agent: Agent, url: URL, item: E2eRequest): Promise<number | 'error'> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...item.headers, 'content-length': String(item.body.length) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve('error'));
      },
    );
    req.on('error', () => resolve('error'));
    req.setTimeout(30_000, () => req.destroy());
    req.end(item.body);
  });
}

/** Sends every request once and resolves when all were answered. */
export async function drive(options: DriveOptions): Promise<DriveResult> {
  const url = new URL(options.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing non-loopback target ${options.url}`);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const okAt = new Map<string, number>();
  const failures: Record<string, number> = {};
  const send = async (item: E2eRequest): Promise<void> => {
    const status = await post(agent, url, item);
    if (status === 200) okAt.set(item.eventId, Date.now());
    else failures[String(status)] = (failures[String(status)] ?? 0) + 1;
  };
  const startedAt = Date.now();
  try {
    if (options.rate === undefined) {
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < options.requests.length) await send(options.requests[next++]);
      };
      await Promise.all(Array.from({ length: options.connections }, lane));
    } else {
      const intervalMs = 1000 / options.rate;
      const inFlight: Promise<void>[] = [];
      for (let index = 0; index < options.requests.length; index++) {
        const due = startedAt + index * intervalMs;
        const wait = due - Date.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
        inFlight.push(send(options.requests[index]));
      }
      await Promise.all(inFlight);
    }
  } finally {
    agent.destroy();
  }
  return { startedAt, okAt, failures };
}
