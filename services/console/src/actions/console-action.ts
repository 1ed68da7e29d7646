import type { z } from 'zod';
import type { Actor } from '../auth/roles';
import type { ConsoleDependencies } from '../dependencies';

/** What a preview (dry run) shows before anything changes. */
export interface ActionPreview {
  /** How many things the action would change. */
  count: number;
  /** One sentence: "Reopens 3 set-aside events of stripe and publishes them again". */
  summary: string;
  /** The first of them, to look at. */
  items: unknown[];
}

/** What an action did. */
export interface ActionOutcome {
  summary: string;
  result: unknown;
}

/**
 * One thing the console or the portal can change. Every action has a dry run (`preview`) and runs only with the
 * confirmation its preview issued (see `action-routes.ts`); both are written to the audit trail.
 */
export interface ConsoleAction<P = unknown> {
  name: string;
  /** `console`: operators; `portal`: a workspace's portal session (the action checks the workspace). */
  audience: 'console' | 'portal';
  params: z.ZodType<P>;
  preview(params: P, dependencies: ConsoleDependencies, actor: Actor): Promise<ActionPreview>;
  execute(params: P, dependencies: ConsoleDependencies, actor: Actor): Promise<ActionOutcome>;
}

/** Declares an action with its parameter type inferred from its schema. */
export function defineAction<S extends z.ZodType>(
  action: Omit<ConsoleAction<z.infer<S>>, 'params'> & { params: S },
): ConsoleAction<z.infer<S>> {
  return action as ConsoleAction<z.infer<S>>;
}

/** "1 event", "3 events": a count with its noun, pluralised (`plural` when it is not just an added "s"). */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
