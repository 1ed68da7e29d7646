/** The parameters of an `application/x-www-form-urlencoded` body, in order, decoded as the provider encoded them. */
export function formParams(text: string): [string, string][] {
  return [...new URLSearchParams(text).entries()];
}

/** The parameters as one JSON object (a repeated name keeps its last value), stored and handed to the handler. */
export function formObject(params: readonly [string, string][]): Record<string, string> {
  return Object.fromEntries(params);
}
