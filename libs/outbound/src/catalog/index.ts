export { createEventCatalog } from './event-catalog';
export type { EventCatalog, EventTypeDefinition, JsonSchema } from './event-catalog';
export { BERTH_EVENT_TYPES, TEST_EVENT_TYPE, berthEventCatalog } from './berth-event-types';
