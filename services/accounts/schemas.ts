// What the account routes answer, in PostHog's shapes (its UserSerializer, OrganizationSerializer,
// OrganizationMemberSerializer and OrganizationInviteSerializer): the fields PostHog's clients read, with
// PostHog's names and types. Declared once, for the routes and the OpenAPI document.
import { Type } from 'typebox'
import { UserBasic } from '../platform/http/schemas'

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])

const TeamBasic = Type.Object(
  { id: Type.Integer(), name: Type.String(), api_token: Type.String(), organization: Type.String(), project_id: Type.Integer() },
  { additionalProperties: true },
)

export const OrganizationAnswer = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    membership_level: Type.Integer({ description: '1 member, 8 admin, 15 owner' }),
    teams: Type.Array(TeamBasic),
    projects: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), organization_id: Type.String() })),
    member_count: Type.Integer(),
    members_can_invite: Type.Boolean(),
  },
  { additionalProperties: true },
)

export const UserAnswer = Type.Object(
  {
    ...UserBasic.properties,
    date_joined: Type.String({ format: 'date-time' }),
    has_password: Type.Boolean(),
    is_staff: Type.Boolean(),
    team: Type.Union([TeamBasic, Type.Null()]),
    organization: OrganizationAnswer,
    organizations: Type.Array(
      Type.Object(
        { id: Type.String(), name: Type.String(), slug: Type.String(), membership_level: Type.Integer() },
        { additionalProperties: true },
      ),
    ),
    scopes: Type.Array(Type.String(), {
      description: 'Wren’s own: what this caller may do (a session’s role, or the key’s scopes within its user’s role)',
    }),
    signed_in_with: Type.Union([Type.Literal('password'), Type.Literal('personal_api_key')], {
      description: 'Wren’s own: a session of the user’s password, or a personal API key (sent, or the one a session was opened with)',
    }),
  },
  { additionalProperties: true },
)

export const MemberAnswer = Type.Object(
  {
    id: Type.String(),
    user: UserBasic,
    level: Type.Integer(),
    joined_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    last_login: Nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: true },
)

export const InviteAnswer = Type.Object(
  {
    id: Type.String(),
    target_email: Type.String(),
    first_name: Type.String(),
    level: Type.Integer(),
    is_expired: Type.Boolean(),
    created_by: Type.Union([UserBasic, Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    invite_url: Type.Optional(Type.String({ description: 'Wren’s own, at creation only: the single-use link to send' })),
  },
  { additionalProperties: true },
)
