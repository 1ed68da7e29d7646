import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { BERTH_EVENT_TYPES, berthEventCatalog, createEventCatalog, TEST_EVENT_TYPE } from './index';

describe('event catalog', () => {
  it('holds every registered type, each example valid against its own JSON Schema', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const catalog = berthEventCatalog();
    expect(
      catalog
        .list()
        .map((entry) => entry.type)
        .sort(),
    ).toEqual(BERTH_EVENT_TYPES.map((entry) => entry.type).sort());
    for (const entry of catalog.list()) {
      const validate = ajv.compile(entry.schema);
      expect({ type: entry.type, valid: validate(entry.example), errors: validate.errors ?? null }).toEqual({
        type: entry.type,
        valid: true,
        errors: null,
      });
    }
    expect(catalog.get(TEST_EVENT_TYPE)?.group).toBe('testing');
    expect(catalog.get('no.such.type')).toBeUndefined();
  });

  it('refuses a repeated type, an invalid name and a schema that does not describe an object', () => {
    const valid = { type: 'a.b', description: 'x', schema: { type: 'object' }, example: {} };
    expect(() => createEventCatalog([valid, valid])).toThrow('registered twice');
    expect(() => createEventCatalog([{ ...valid, type: 'a b' }])).toThrow(TypeError);
    expect(() => createEventCatalog([{ ...valid, schema: { type: 'string' } }])).toThrow('must describe an object');
  });
});
