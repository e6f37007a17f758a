/**
 * Ready-made `requestedSchema` fixtures for tests of hosts and servers: one schema per field kind
 * and a form with every 2025-11-25 kind (the shape server-everything's `trigger-elicitation-request`
 * sends, see peers-and-tests.md §ii.2), with matching valid content.
 * @module
 */
import type { Content, RequestedSchema } from '../schema/types.js';

/** A 13-field form exercising every 2025-11-25 field kind, defaults included. */
export const EVERY_KIND_FORM: RequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Full name', description: 'Your full name' },
    check: { type: 'boolean', title: 'Agree', description: 'Agree to the terms' },
    firstLine: { type: 'string', title: 'First line', description: 'Start of a story', default: 'It was a dark and stormy night.' },
    email: { type: 'string', title: 'Email', description: 'Contact address', format: 'email' },
    homepage: { type: 'string', title: 'Homepage', description: 'Your web page', format: 'uri' },
    birthdate: { type: 'string', title: 'Birthdate', description: 'Date of birth', format: 'date' },
    integer: { type: 'integer', title: 'Favourite integer', description: '1 to 100', minimum: 1, maximum: 100, default: 42 },
    number: { type: 'number', title: 'Favourite number', description: '0 to 1000', minimum: 0, maximum: 1000, default: 3.14 },
    untitledSingleSelectEnum: {
      type: 'string',
      title: 'Friend',
      description: 'Pick one',
      enum: ['Monica', 'Rachel', 'Joey', 'Chandler', 'Ross', 'Phoebe'],
      default: 'Monica',
    },
    untitledMultipleSelectEnum: {
      type: 'array',
      title: 'Instruments',
      description: 'Pick one to three',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['Guitar', 'Piano', 'Violin', 'Drums', 'Bass'] },
      default: ['Guitar'],
    },
    titledSingleSelectEnum: {
      type: 'string',
      title: 'Hero',
      description: 'Pick one',
      oneOf: [
        { const: 'hero-1', title: 'Superman' },
        { const: 'hero-2', title: 'Green Lantern' },
        { const: 'hero-3', title: 'Wonder Woman' },
      ],
      default: 'hero-1',
    },
    titledMultipleSelectEnum: {
      type: 'array',
      title: 'Fish',
      description: 'Pick one to three',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'fish-1', title: 'Tuna' },
          { const: 'fish-2', title: 'Salmon' },
          { const: 'fish-3', title: 'Trout' },
        ],
      },
      default: ['fish-1'],
    },
    legacyTitledEnum: {
      type: 'string',
      title: 'Pet',
      description: 'Pick one',
      enum: ['pet-1', 'pet-2', 'pet-3', 'pet-4', 'pet-5'],
      enumNames: ['Cats', 'Dogs', 'Birds', 'Fish', 'Reptiles'],
      default: 'pet-1',
    },
  },
  required: ['name'],
};

/** Valid content for {@link EVERY_KIND_FORM}. */
export const EVERY_KIND_CONTENT: Content = {
  name: 'Ada Lovelace',
  check: true,
  firstLine: 'It was a dark and stormy night.',
  email: 'ada@example.com',
  homepage: 'https://example.com/ada',
  birthdate: '1815-12-10',
  integer: 7,
  number: 95.5,
  untitledSingleSelectEnum: 'Joey',
  untitledMultipleSelectEnum: ['Piano', 'Drums'],
  titledSingleSelectEnum: 'hero-3',
  titledMultipleSelectEnum: ['fish-2'],
  legacyTitledEnum: 'pet-2',
};

/** A confirm-only prompt (empty properties): accept sends `{}`. */
export const CONFIRM_ONLY: RequestedSchema = { type: 'object', properties: {} };
