import type { Context } from 'koa';
import type { z } from 'zod';
import { ConsoleError } from '../errors';

/** Validates the query string with a zod schema. @throws ConsoleError 400 naming every problem */
export function queryOf<S extends z.ZodType>(ctx: Context, schema: S): z.infer<S> {
  const parsed = schema.safeParse(ctx.query);
  if (!parsed.success)
    throw new ConsoleError(
      400,
      'invalid_request',
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    );
  return parsed.data;
}
