// The type a property gets from a value (PostHog's property-defs rules), and a part's rows: one per key,
// the earliest typed sighting kept.
import { describe, expect, it } from 'vitest'
import { definitionRows, detectPropertyType } from './definitions'
import type { ProcessedEvent } from './types'

const NOW = Date.parse('2026-03-15T12:00:00Z') / 1000

describe('detectPropertyType', () => {
  it('reads numbers, booleans, dates and text as PostHog does', () => {
    const cases: Array<[string, unknown, string | null]> = [
      ['price', 49.5, 'Numeric'],
      ['count', 0, 'Numeric'],
      ['is_trial', true, 'Boolean'],
      ['is_trial', 'false', 'Boolean'],
      ['is_trial', ' TRUE ', 'Boolean'],
      ['renews', '2026-04-01T00:00:00Z', 'DateTime'],
      ['renews', '2026-04-01T00:00:00.123+02:00', 'DateTime'],
      ['renews', '2026-04-01', 'DateTime'],
      ['renews', '01/04/2026', 'DateTime'],
      ['renews', 'Wed, 01 Apr 2026 00:00:00 GMT', 'DateTime'],
      ['plan', 'pro', 'String'],
      ['plan', '42', 'String'],
      ['nothing', null, null],
      ['list', [1, 2], null],
      ['object', { a: 1 }, null],
      // Names that are always text, whatever their first value looks like.
      ['utm_campaign', 2026, 'String'],
      ['UTM_source', true, 'String'],
      ['$feature/new-checkout', true, 'String'],
      ['$feature_flag_response', false, 'String'],
      ['$survey_response_2', 5, 'String'],
      // A date-named property holding a recent Unix timestamp in seconds; an old one or a count stays a number.
      ['signed_up_at', NOW - 3600, 'DateTime'],
      ['signed_up_at', NOW - 400 * 86_400, 'Numeric'],
      ['retries', NOW, 'Numeric'],
    ]
    expect(cases.map(([name, value]) => [name, value, detectPropertyType(name, value, NOW)])).toEqual(cases)
  })
})

describe('definitionRows', () => {
  const event = (name: string, createdAt: string, properties: Record<string, unknown>): ProcessedEvent => ({
    teamId: 1,
    uuid: '00000000-0000-0000-0000-000000000000',
    event: name,
    distinctId: 'd',
    properties,
    timestamp: createdAt,
    createdAt,
    elementsChain: '',
    personId: '00000000-0000-0000-0000-000000000000',
    personProperties: {},
    personCreatedAt: createdAt,
    personMode: 'full',
    groupProperties: [{}, {}, {}, {}, {}],
  })

  it('makes one row per key, with the first and last sighting and the earliest typed value', () => {
    const rows = definitionRows(
      [
        event('paid', '2026-03-15T10:00:02.000Z', { amount: 'ten', note: null }),
        event('paid', '2026-03-15T10:00:01.000Z', { amount: 10, note: null, $set: { plan: 'pro' }, $groups: { company: 'a' } }),
        event('paid', '2026-03-15T10:00:03.000Z', { amount: 11, note: 'x' }),
        event('$$plugin_metrics', '2026-03-15T10:00:03.000Z', { x: 1 }),
      ],
      [],
    )
    expect(rows.event_definitions).toEqual([
      { team_id: 1, name: 'paid', created_at: '2026-03-15T10:00:01.000Z', last_seen_at: '2026-03-15T10:00:03.000Z' },
    ])
    expect(rows.property_definitions).toEqual([
      { team_id: 1, type: 'event', group_type_index: -1, name: 'amount', first_type: ['2026-03-15T10:00:01.000Z', 'Numeric'] },
      { team_id: 1, type: 'event', group_type_index: -1, name: 'note', first_type: ['2026-03-15T10:00:03.000Z', 'String'] },
      { team_id: 1, type: 'person', group_type_index: -1, name: 'plan', first_type: ['2026-03-15T10:00:01.000Z', 'String'] },
    ])
    expect(rows.event_properties).toEqual([
      { team_id: 1, event: 'paid', property: 'amount' },
      { team_id: 1, event: 'paid', property: 'note' },
    ])
  })
})
