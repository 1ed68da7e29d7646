/**
 * A benchmark's integer setting: environment variable `name`, or `fallback` when it is unset or empty; anything
 * that is not an integer in [`min`, `max`] stops the run before it starts.
 */
export function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be an integer in [${min}, ${max}], got ${raw}`);
  return value;
}
