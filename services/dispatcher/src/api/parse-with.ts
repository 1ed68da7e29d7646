import type { z } from 'zod';
import { ApiError } from './read-json-body';

/** Validates input with a zod schema. @throws ApiError 400 naming every problem */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success)
    throw new ApiError(
      400,
      'invalid_request',
      result.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; '),
    );
  return result.data;
}
