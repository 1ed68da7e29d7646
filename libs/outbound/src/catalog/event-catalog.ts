import { assertEventType } from '../names';

/** A JSON Schema (draft 2020-12) describing an event's `data`, as plain JSON. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** One event type a product sends, as its customers see it before they subscribe. */
export interface EventTypeDefinition {
  /** The `eventType` of `send()`, e.g. `invoice.paid`. */
  readonly type: string;
  /** One sentence: when the product sends it. */
  readonly description: string;
  /** The JSON Schema of the event's `data` (the body is `{ type, timestamp, data }`). */
  readonly schema: JsonSchema;
  /** A `data` that satisfies the schema: shown in the portal and sent as its test event. */
  readonly example: unknown;
  /** Groups types in the portal (`billing`, `members`…). */
  readonly group?: string;
}

/** The event types a product sends, looked up by type. Immutable once created. */
export interface EventCatalog {
  /** Every type, sorted by group then type. */
  list(): readonly EventTypeDefinition[];
  /** The type, or undefined. */
  get(type: string): EventTypeDefinition | undefined;
}

/**
 * Builds a catalog from definitions registered in code (see `BERTH_EVENT_TYPES`), so the types customers can
 * subscribe to are reviewed and versioned with the code that sends them.
 * @throws TypeError for an invalid or repeated type name, or a schema that is not an object schema.
 */
export function createEventCatalog(definitions: readonly EventTypeDefinition[]): EventCatalog {
  const byType = new Map<string, EventTypeDefinition>();
  for (const definition of definitions) {
    assertEventType(definition.type);
    if (byType.has(definition.type)) throw new TypeError(`event type ${definition.type} is registered twice`);
    if (definition.schema.type !== 'object')
      throw new TypeError(`the schema of ${definition.type} must describe an object (type: "object")`);
    if (definition.description.trim() === '') throw new TypeError(`event type ${definition.type} needs a description`);
    byType.set(definition.type, Object.freeze({ ...definition }));
  }
  const sorted = Object.freeze(
    [...byType.values()].sort((a, b) => (a.group ?? '').localeCompare(b.group ?? '') || a.type.localeCompare(b.type)),
  );
  return { list: () => sorted, get: (type) => byType.get(type) };
}
