// GET /api/projects/:project_id/event_definitions/ and /property_definitions/: the event names and
// property names (with their types) ingestion has seen, as PostHog's API lists them, for the app's
// pickers. Definitions are kept by ingestion (ingestion/definitions.ts); these routes only read them.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Tenants } from '../platform/tenancy'
import type { Clock } from '../platform/clock'
import { wrenError } from '../platform/errors'
import { pageLinks, pageRequest } from '../platform/http/request-url'
import { routesOf } from '../platform/http/route'
import { Paging } from '../platform/http/schemas'
import { DefinitionQueries, sessionPropertyDefinitions, type EventOrdering } from './queries'
import { EventDefinitionPage, PropertyDefinitionPage } from './schemas'
import { CORE_EVENT_PROPERTIES_WITHOUT_PREFIX } from './core-properties'
import { parsedOrUndefined } from '../platform/json'

const MAX_LIMIT = 1000
// PostHog's property definitions answer 500 when no limit is asked; its other lists 100.
const EVENT_DEFAULT_LIMIT = 100
const PROPERTY_DEFAULT_LIMIT = 500
// PostHog's group types are 0 to 4 (GROUP_TYPES_LIMIT).
const GROUP_TYPES = 5

// Event properties PostHog's API never lists: set by libraries or used by ingestion itself
// (posthog/api/property_definition.py EVENTS_HIDDEN_PROPERTY_DEFINITIONS).
const HIDDEN_EVENT_PROPERTIES = [
  'distinct_id',
  '$set',
  '$set_once',
  '$initial_referrer',
  '$initial_referring_domain',
  '$groups',
  '$group_type',
  '$group_key',
  '$group_set',
  ...Array.from({ length: GROUP_TYPES }, (_, i) => `$group_${i}`),
]

const JsonList = (description: string) => Type.String({ description: `${description} A JSON list of names.` })

export async function definitionRoutes(
  app: FastifyInstance,
  deps: { projects: Tenants; queries: DefinitionQueries; clock: Clock; siteUrl: string | null },
): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'definitions' })

  route({
    method: 'GET',
    url: '/event_definitions/',
    summary: 'List the event names ingestion has seen',
    description: 'Newest last-seen day first, then by name (`ordering` to choose); `volume_30_day` counts the events of the last 30 days.',
    access: { project: 'event_definition:read' },
    schema: {
      querystring: Type.Object({
        ...Paging(EVENT_DEFAULT_LIMIT, MAX_LIMIT),
        search: Type.Optional(Type.String({ description: 'Every word is somewhere in the name, any case.' })),
        event_type: Type.Optional(
          Type.Union([Type.Literal('event'), Type.Literal('event_custom'), Type.Literal('event_posthog')], {
            description: "event (all), event_custom (names not starting with '$') or event_posthog (names starting with '$').",
          }),
        ),
        ordering: Type.Optional(
          Type.Union(
            [
              Type.Literal('name'),
              Type.Literal('-name'),
              Type.Literal('last_seen_at'),
              Type.Literal('-last_seen_at'),
              Type.Literal('created_at'),
              Type.Literal('-created_at'),
            ],
            { description: 'name, last_seen_at or created_at; a leading - for descending.' },
          ),
        ),
        excluded_properties: Type.Optional(JsonList('Event names to leave out.')),
      }),
      response: { 200: EventDefinitionPage },
    },
    handler: async (request, _reply, caller) => {
      const q = request.query
      const page = pageRequest(q, EVENT_DEFAULT_LIMIT)
      const ordering = q.ordering ? { field: q.ordering.replace(/^-/, '') as EventOrdering, descending: q.ordering.startsWith('-') } : null
      const { count, results } = await deps.queries.events(
        caller.project.id,
        {
          search: q.search ?? '',
          eventType: q.event_type ?? 'event',
          ordering,
          excluded: jsonList(q.excluded_properties, 'excluded_properties') ?? [],
          limit: page.limit,
          offset: page.offset,
        },
        deps.clock.now(),
      )
      return { count, ...pageLinks(request, deps.siteUrl, page, { count }), results }
    },
  })

  route({
    method: 'GET',
    url: '/property_definitions/',
    summary: 'List the property names ingestion has seen, with their types',
    description:
      'Event properties by default (`type`); a property keeps the type it was first seen with. With `event_names`, properties seen on those events come first.',
    access: { project: 'property_definition:read' },
    schema: {
      querystring: Type.Object({
        ...Paging(PROPERTY_DEFAULT_LIMIT, MAX_LIMIT),
        type: Type.Optional(
          Type.Union([Type.Literal('event'), Type.Literal('person'), Type.Literal('group'), Type.Literal('session')], {
            description: 'event (default), person, group (with group_type_index) or session (the session fields Wren computes).',
          }),
        ),
        group_type_index: Type.Optional(Type.Integer({ minimum: 0, maximum: GROUP_TYPES - 1 })),
        search: Type.Optional(Type.String({ description: 'Every word is somewhere in the name, any case.' })),
        properties: Type.Optional(Type.String({ description: 'Only these names, comma-separated.' })),
        is_numerical: Type.Optional(Type.Boolean({ description: 'true: only numeric properties.' })),
        event_names: Type.Optional(JsonList('Events whose properties come first, marked is_seen_on_filtered_events.')),
        filter_by_event_names: Type.Optional(Type.Boolean({ description: 'true: only properties seen on `event_names`.' })),
        excluded_properties: Type.Optional(JsonList('Property names to leave out.')),
        exclude_core_properties: Type.Optional(
          Type.Boolean({
            description:
              "true (event properties only): leave out PostHog's own properties, every name starting with '$' and its taxonomy's others (utm_source, gclid, …).",
          }),
        ),
      }),
      response: { 200: PropertyDefinitionPage },
    },
    handler: async (request, _reply, caller) => {
      const q = request.query
      const page = pageRequest(q, PROPERTY_DEFAULT_LIMIT)
      const kind = q.type ?? 'event'
      // PostHog's own checks of these parameters (PropertyDefinitionQuerySerializer.validate).
      if (kind === 'group' && q.group_type_index === undefined)
        throw wrenError('invalid_input', '`group_type_index` must be set for `group` type', 'group_type_index')
      if (kind !== 'group' && q.group_type_index !== undefined)
        throw wrenError('invalid_input', '`group_type_index` can only set for `group` type', 'group_type_index')
      const eventNames = jsonList(q.event_names, 'event_names')
      if (kind !== 'event' && eventNames?.length)
        throw wrenError('invalid_input', '`event_names` can only be set for `event` type', 'event_names')
      const excluded = jsonList(q.excluded_properties, 'excluded_properties') ?? []
      const excludeCore = kind === 'event' && q.exclude_core_properties === true
      const common = {
        search: q.search ?? '',
        names: q.properties ? q.properties.split(',') : null,
        numericalOnly: q.is_numerical === true,
        limit: page.limit,
        offset: page.offset,
      }
      const { count, results } =
        kind === 'session'
          ? sessionPropertyDefinitions(caller.project.id, { ...common, excluded })
          : await deps.queries.properties(caller.project.id, {
              ...common,
              kind,
              groupTypeIndex: kind === 'group' ? (q.group_type_index ?? 0) : -1,
              excluded:
                kind !== 'event'
                  ? excluded
                  : [...excluded, ...HIDDEN_EVENT_PROPERTIES, ...(excludeCore ? CORE_EVENT_PROPERTIES_WITHOUT_PREFIX : [])],
              excludePrefixed: excludeCore,
              eventNames,
              filterByEventNames: q.filter_by_event_names === true,
            })
      return { count, ...pageLinks(request, deps.siteUrl, page, { count }), results }
    },
  })
}

/** A JSON-encoded list of names (PostHog passes lists so, not as repeated parameters), or a 400 naming `attr`. */
function jsonList(raw: string | undefined, attr: string): string[] | null {
  if (raw === undefined || raw === '') return null
  const value = parsedOrUndefined(raw)
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw wrenError('invalid_input', `${attr} must be a JSON list of names, like ["$pageview"].`, attr)
  return value
}
