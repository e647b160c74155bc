// Accounts through PostHog's routes: sign in and out (/api/login, /api/logout), the caller's own user
// (/api/users/@me/), the organization with its projects, members and invitations (/api/organizations/…), and
// the links that let a person in: an invitation's, or the owner's setup link (/api/signup/:token/).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import {
  callerKeyFrom,
  signedInUser,
  canReach,
  CSRF_COOKIE,
  PERSONAL_KEY_PARAM,
  SESSION_COOKIE,
  sessionOf,
  sessionTokenOf,
  shownKey,
} from '../platform/http/auth'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import { ErrorBody, MAX_LIST_LIMIT, NoContent, Paginated, Paging } from '../platform/http/schemas'
import { pageOfList } from '../platform/http/request-url'
import { clientAddressOf } from '../platform/http/management'
import type { Clock } from '../platform/clock'
import type { PersonalApiKey, Project } from '../platform/tenancy'
import type { ProjectStore } from '../projects/store'
import { serializeProject } from '../projects/routes'
import { ProjectAnswer } from '../projects/schemas'
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords'
import { LEVELS, roleOf } from './roles'
import { LoginLimits } from './login-limits'
import { normalEmail, INVITE_DAYS, SESSION_DAYS, userPrincipal, type AccountStore, type Invite, type User } from './store'
import { InviteAnswer, MemberAnswer, OrganizationAnswer, UserAnswer } from './schemas'

/** What PostHog takes in place of an organization id: the caller's (Wren has one). */
const CURRENT = '@current'

export interface AccountRouteDeps {
  accounts: AccountStore
  projects: ProjectStore
  clock: Clock
  siteUrl: string | null
  trustedProxies: readonly string[]
}

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$', description: 'an email address' })
const Password = Type.String({ maxLength: MAX_PASSWORD_LENGTH, description: `at least ${MIN_PASSWORD_LENGTH} characters` })
const Level = Type.Union([Type.Literal(LEVELS.member), Type.Literal(LEVELS.admin), Type.Literal(LEVELS.owner)], {
  description: 'membership level: 1 member, 8 admin, 15 owner',
})
const Success = Type.Object({ success: Type.Boolean() })
/** A key limited to some projects sees the organization as those projects, and never administers it. */
const LIMITED = 'A key limited to some projects cannot see or change the organization’s members, invitations or name.'
const OrgParams = Type.Object({ organization_id: Type.String({ description: `the organization's id, or \`${CURRENT}\`` }) })

export async function accountRoutes(app: FastifyInstance, deps: AccountRouteDeps): Promise<void> {
  const { accounts, projects, clock, siteUrl } = deps
  const route = routesOf(app, { projects, tag: 'accounts' })
  const limits = new LoginLimits(clock)
  const addressOf = clientAddressOf(deps.trustedProxies)

  /** Opens a session (the cookie's value never appears in a body) and sets its two cookies. */
  const signIn = async (request: FastifyRequest, reply: FastifyReply, user: User, keyId = ''): Promise<void> => {
    const { token, session } = await accounts.createSession(user.id, keyId)
    const common = { path: '/', sameSite: 'lax' as const, secure: request.protocol === 'https', maxAge: SESSION_DAYS * 86_400 }
    reply.setCookie(SESSION_COOKIE, token, { ...common, httpOnly: true })
    reply.setCookie(CSRF_COOKIE, session.csrfToken, common)
    if (!keyId) await accounts.recordLogin(user.id)
  }
  const clearCookies = (reply: FastifyReply) => {
    reply.clearCookie(SESSION_COOKIE, { path: '/' })
    reply.clearCookie(CSRF_COOKIE, { path: '/' })
  }
  /** The user a caller (session or key) acts for. */
  const userOf = (caller: PersonalApiKey): User => {
    const user = accounts.keyUser(caller)
    if (!user) throw wrenError('not_found', 'No user yet: the owner has not been set up (open the setup link `npm start` prints).')
    return user
  }
  const organizationOf = (id: string) => {
    const org = accounts.organization()
    if (id !== CURRENT && id !== org.id) throw wrenError('not_found', `Organization ${id} does not exist.`)
    return org
  }
  const reached = (caller: PersonalApiKey): Project[] =>
    projects
      .list()
      .filter((p) => canReach(caller, p.id))
      .sort((a, b) => a.id - b.id)
  const serializeOrganization = (caller: PersonalApiKey) => {
    const org = accounts.organization()
    const level = userOf(caller).level
    const teams = reached(caller).map((p) => teamBasic(p, org.id))
    return {
      id: org.id,
      name: org.name,
      slug: slugOf(org.name),
      logo_media_id: null,
      created_at: org.createdAt,
      updated_at: org.createdAt,
      membership_level: level,
      plugins_access_level: 0,
      teams,
      projects: teams.map((t) => ({ id: t.id, name: t.name, organization_id: org.id })),
      available_product_features: [],
      is_member_join_email_enabled: false,
      metadata: {},
      customer_id: null,
      enforce_2fa: null,
      members_can_invite: false,
      members_can_use_personal_api_keys: true,
      allow_publicly_shared_resources: true,
      member_count: accounts.members().length,
    }
  }
  const organizationBasic = (caller: PersonalApiKey) => {
    const org = accounts.organization()
    return {
      id: org.id,
      name: org.name,
      slug: slugOf(org.name),
      logo_media_id: null,
      membership_level: userOf(caller).level,
      members_can_use_personal_api_keys: true,
    }
  }
  const serializeMe = (caller: PersonalApiKey) => {
    const user = userOf(caller)
    const current = reached(caller)[0]
    return {
      ...userBasic(user),
      date_joined: user.createdAt,
      pending_email: null,
      has_password: user.passwordHash !== '',
      is_staff: false,
      is_impersonated: false,
      is_2fa_enabled: false,
      has_social_auth: false,
      team: current ? teamBasic(current, accounts.organization().id) : null,
      organization: serializeOrganization(caller),
      organizations: [organizationBasic(caller)],
      // Wren's own: what this caller may do (a session's role, or the key's scopes within its user's role).
      scopes: caller.scopes,
      signed_in_with: signedInUser(caller) !== null ? ('password' as const) : ('personal_api_key' as const),
    }
  }
  const serializeInvite = (invite: Invite) => {
    const by = accounts.user(invite.createdBy)
    return {
      id: invite.id,
      target_email: invite.targetEmail,
      first_name: invite.firstName,
      emailing_attempt_made: false,
      level: invite.level,
      is_expired: accounts.isExpired(invite),
      created_by: by ? userBasic(by) : null,
      created_at: invite.createdAt,
      updated_at: invite.createdAt,
      message: null,
      private_project_access: [],
    }
  }

  route({
    method: 'POST',
    url: '/api/login',
    summary: 'Sign in: with an email and a password, or a personal API key (the app’s “use a key”)',
    description:
      'Answers {"success": true} and sets the session cookie (HttpOnly, SameSite=Lax, Secure over HTTPS) and the CSRF token cookie, whose value every write made with the session echoes in X-CSRFToken. A wrong email or password is one 401 (no hint which); past 10 failures for an account or 50 from an address in 15 minutes, 403 too_many_failed_attempts until the window passes. With a personal API key (Authorization: Bearer, or personal_api_key in the body), the session acts as that key and ends with it.',
    access: { public: 'an email and password, or a personal API key' },
    schema: {
      body: Type.Object({
        email: Type.Optional(Type.String({ maxLength: 254 })),
        password: Type.Optional(Password),
        [PERSONAL_KEY_PARAM]: Type.Optional(Type.String({ maxLength: 200 })),
      }),
      response: { 200: Success, 401: ErrorBody, 403: ErrorBody },
    },
    handler: async (request, reply) => {
      const address = addressOf(request)
      if (shownKey(request) !== null) {
        // A key is guessed no faster here than on the management routes: its failures count against the address.
        limits.check(null, address)
        const key = await callerKeyFrom(request, projects).catch((err: unknown) => {
          limits.failed(null, address)
          throw err
        })
        const user = accounts.keyUser(key)
        if (!user) throw wrenError('not_found', 'No user yet: the owner has not been set up (open the setup link `npm start` prints).')
        await signIn(request, reply, user, key.id)
        return { success: true }
      }
      const { email, password } = request.body
      if (!email) throw wrenError('required', 'This field is required.', 'email')
      if (!password) throw wrenError('required', 'This field is required.', 'password')
      const account = normalEmail(email)
      limits.check(account, address)
      const user = await accounts.lookUp(() => accounts.userByEmail(account))
      const right = await verifyPassword(password, user?.passwordHash ?? null)
      if (!user || !right) {
        limits.failed(account, address)
        throw wrenError('invalid_credentials')
      }
      limits.succeeded(account)
      await signIn(request, reply, user)
      return { success: true }
    },
  })

  route({
    method: 'POST',
    url: '/api/logout',
    summary: 'Sign out: the session ends at once, in every process',
    description: 'Needs the session’s X-CSRFToken. Without a live session it only clears the cookies.',
    access: { public: 'the session cookie' },
    schema: { response: { 200: Success } },
    handler: async (request, reply) => {
      const grant = await sessionOf(request, projects)
      if (grant) {
        // The CSRF check: a page of another site may not sign a user out either.
        await callerKeyFrom(request, projects)
        const session = await accounts.session(sessionTokenOf(request)!)
        if (session) await accounts.endSession(session)
      }
      clearCookies(reply)
      return { success: true }
    },
  })

  route({
    method: 'GET',
    url: '/api/users/@me/',
    summary: 'The signed-in user, or the user a personal API key belongs to',
    access: { key: 'user:read' },
    schema: { response: { 200: UserAnswer } },
    handler: async (_request, _reply, caller) => serializeMe(caller),
  })

  route({
    method: 'PATCH',
    url: '/api/users/@me/',
    summary: 'Change your name, or your password (with current_password); a new password ends your other sessions',
    access: { key: 'user:write' },
    schema: {
      body: Type.Object({
        first_name: Type.Optional(Type.String({ maxLength: 150 })),
        last_name: Type.Optional(Type.String({ maxLength: 150 })),
        password: Type.Optional(Password),
        current_password: Type.Optional(Type.String({ maxLength: MAX_PASSWORD_LENGTH })),
      }),
      response: { 200: UserAnswer },
    },
    handler: async (request, _reply, caller) => {
      const user = userOf(caller)
      const { first_name, last_name, password, current_password } = request.body
      const patch: Partial<User> = {
        ...(first_name !== undefined ? { firstName: first_name } : {}),
        ...(last_name !== undefined ? { lastName: last_name } : {}),
      }
      if (password !== undefined) {
        checkPassword(password)
        if (user.passwordHash && !(await verifyPassword(current_password ?? '', user.passwordHash)))
          throw wrenError('invalid_input', 'Your current password is not this one.', 'current_password')
        patch.passwordHash = await hashPassword(password)
      }
      await accounts.update(user.id, patch)
      if (password !== undefined) await accounts.endSessionsOf(user.id, caller.sessionId)
      return serializeMe(caller)
    },
  })

  route({
    method: 'GET',
    url: '/api/organizations/',
    summary: 'The organizations you belong to (Wren has one)',
    access: { key: 'organization:read' },
    schema: { querystring: Type.Object(Paging(100, MAX_LIST_LIMIT)), response: { 200: Paginated(OrganizationAnswer) } },
    handler: async (request, _reply, caller) => {
      userOf(caller)
      return pageOfList(request, siteUrl, [serializeOrganization(caller)], request.query, 100)
    },
  })

  route({
    method: 'GET',
    url: '/api/organizations/:organization_id/',
    summary: 'Retrieve the organization',
    access: { key: 'organization:read' },
    schema: { params: OrgParams, response: { 200: OrganizationAnswer } },
    handler: async (request, _reply, caller) => {
      organizationOf(request.params.organization_id)
      return serializeOrganization(caller)
    },
  })

  route({
    method: 'PATCH',
    url: '/api/organizations/:organization_id/',
    summary: 'Rename the organization (admins and owners)',
    access: { key: 'organization:write', allProjects: LIMITED },
    schema: {
      params: OrgParams,
      body: Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' })) }),
      response: { 200: OrganizationAnswer },
    },
    handler: async (request, _reply, caller) => {
      organizationOf(request.params.organization_id)
      if (request.body.name !== undefined) await accounts.renameOrganization(request.body.name.trim())
      return serializeOrganization(caller)
    },
  })

  route({
    method: 'GET',
    url: '/api/organizations/:organization_id/projects/',
    summary: 'The organization’s projects you reach',
    access: { key: 'project:read' },
    schema: { params: OrgParams, querystring: Type.Object(Paging(100, MAX_LIST_LIMIT)), response: { 200: Paginated(ProjectAnswer) } },
    handler: async (request, _reply, caller) => {
      organizationOf(request.params.organization_id)
      const page = pageOfList(request, siteUrl, reached(caller), request.query, 100)
      return { ...page, results: page.results.map((p) => serializeProject(p, accounts.organization().id)) }
    },
  })

  route({
    method: 'GET',
    url: '/api/organizations/:organization_id/members/',
    summary: 'The organization’s members, oldest first',
    access: { key: 'organization_member:read', allProjects: LIMITED },
    schema: { params: OrgParams, querystring: Type.Object(Paging(100, MAX_LIST_LIMIT)), response: { 200: Paginated(MemberAnswer) } },
    handler: async (request) => {
      organizationOf(request.params.organization_id)
      const page = pageOfList(request, siteUrl, accounts.members(), request.query, 100)
      return { ...page, results: page.results.map(serializeMember) }
    },
  })

  const MemberParams = Type.Object({ ...OrgParams.properties, user_uuid: Type.String({ description: 'the member’s user uuid' }) })

  /** The member `uuid` names, if `caller` may change it: admins change members and admins, only owners touch owners, nobody themselves. */
  const changeableMember = (caller: PersonalApiKey, uuid: string): User => {
    const me = userOf(caller)
    const member = accounts.members().find((u) => u.id === uuid)
    if (!member) throw wrenError('not_found', 'No such member.')
    if (member.id === me.id) throw wrenError('permission_denied', 'You cannot change your own membership.')
    if (member.level >= LEVELS.owner && me.level < LEVELS.owner) throw wrenError('permission_denied', 'Only an owner can change an owner.')
    return member
  }

  route({
    method: 'PATCH',
    url: '/api/organizations/:organization_id/members/:user_uuid/',
    summary: 'Change a member’s level (admins; only owners make or unmake owners)',
    access: { key: 'organization_member:write', allProjects: LIMITED },
    schema: { params: MemberParams, body: Type.Object({ level: Level }), response: { 200: MemberAnswer } },
    handler: async (request, _reply, caller) => {
      organizationOf(request.params.organization_id)
      const member = changeableMember(caller, request.params.user_uuid)
      if (request.body.level >= LEVELS.owner && userOf(caller).level < LEVELS.owner)
        throw wrenError('permission_denied', 'Only an owner can make an owner.')
      return serializeMember(await accounts.update(member.id, { level: request.body.level }))
    },
  })

  route({
    method: 'DELETE',
    url: '/api/organizations/:organization_id/members/:user_uuid/',
    summary: 'Remove a member: their sessions end and their keys are revoked (invited again, they start with none)',
    access: { key: 'organization_member:write', allProjects: LIMITED },
    schema: { params: MemberParams, response: { 204: NoContent } },
    handler: async (request, reply, caller) => {
      organizationOf(request.params.organization_id)
      const member = changeableMember(caller, request.params.user_uuid)
      await accounts.update(member.id, { isActive: false })
      await accounts.endSessionsOf(member.id)
      // Refused already (their user is no member), and revoked too: a member invited back gets no old key back.
      for (const key of projects.listKeys()) if (key.userId === member.id) await projects.revokeKey(key.id)
      return reply.status(204).send()
    },
  })

  route({
    method: 'GET',
    url: '/api/organizations/:organization_id/invites/',
    summary: 'Open invitations, newest first (expired ones marked is_expired)',
    access: { key: 'organization_member:read', allProjects: LIMITED },
    schema: { params: OrgParams, querystring: Type.Object(Paging(100, MAX_LIST_LIMIT)), response: { 200: Paginated(InviteAnswer) } },
    handler: async (request) => {
      organizationOf(request.params.organization_id)
      const page = pageOfList(request, siteUrl, accounts.invitations(), request.query, 100)
      return { ...page, results: page.results.map(serializeInvite) }
    },
  })

  route({
    method: 'POST',
    url: '/api/organizations/:organization_id/invites/',
    summary: 'Invite someone by link (admins; only owners invite owners)',
    description: `Answers the invitation with \`invite_url\`, the link to send: shown once, single-use, valid ${INVITE_DAYS} days. Wren sends no email.`,
    access: { key: 'organization_member:write', allProjects: LIMITED },
    schema: {
      params: OrgParams,
      body: Type.Object({
        target_email: Email,
        first_name: Type.Optional(Type.String({ maxLength: 150 })),
        level: Type.Optional(Level),
      }),
      response: { 201: InviteAnswer },
    },
    handler: async (request, reply, caller) => {
      organizationOf(request.params.organization_id)
      const me = userOf(caller)
      const level = request.body.level ?? LEVELS.member
      if (level >= LEVELS.owner && me.level < LEVELS.owner) throw wrenError('permission_denied', 'Only an owner can invite an owner.')
      if (accounts.userByEmail(request.body.target_email))
        throw wrenError('unique', 'A member of the organization already has this email.', 'target_email')
      const { invite, token } = await accounts.createInvite({
        targetEmail: request.body.target_email,
        firstName: request.body.first_name ?? '',
        level,
        createdBy: me.id,
      })
      return reply.status(201).send({ ...serializeInvite(invite), invite_url: `${originOf(request, siteUrl)}/signup/${token}` })
    },
  })

  route({
    method: 'DELETE',
    url: '/api/organizations/:organization_id/invites/:invite_id/',
    summary: 'Revoke an invitation: its link stops working',
    access: { key: 'organization_member:write', allProjects: LIMITED },
    schema: { params: Type.Object({ ...OrgParams.properties, invite_id: Type.String() }), response: { 204: NoContent } },
    handler: async (request, reply) => {
      organizationOf(request.params.organization_id)
      if (!accounts.invite(request.params.invite_id) || !(await accounts.closeInvite(request.params.invite_id)))
        throw wrenError('not_found', 'No such invitation.')
      return reply.status(204).send()
    },
  })

  const TokenParams = Type.Object({
    token: Type.String({ maxLength: 100, description: 'the token of an invitation’s or the owner’s setup link' }),
  })

  route({
    method: 'GET',
    url: '/api/signup/:token/',
    summary: 'What an invitation or setup link opens',
    access: { public: 'the link’s token' },
    schema: {
      params: TokenParams,
      response: {
        200: Type.Object({
          target_email: Type.Union([Type.String(), Type.Null()]),
          first_name: Type.String(),
          organization_name: Type.String(),
          level: Type.Integer(),
          setup: Type.Boolean({ description: 'the owner’s setup link (the email is chosen here) rather than an invitation' }),
        }),
      },
    },
    handler: async (request) => {
      const opened = await openedBy(request.params.token)
      return {
        target_email: opened.setup ? null : opened.email,
        first_name: opened.firstName,
        organization_name: accounts.organization().name,
        level: opened.level,
        setup: opened.setup,
      }
    },
  })

  route({
    method: 'POST',
    url: '/api/signup/:token/',
    summary: 'Accept an invitation (or finish the owner’s setup): set a password and sign in',
    description: 'The link works once. The owner’s setup link also takes the email the owner signs in with.',
    access: { public: 'the link’s token' },
    schema: {
      params: TokenParams,
      body: Type.Object({ first_name: Type.Optional(Type.String({ maxLength: 150 })), password: Password, email: Type.Optional(Email) }),
      response: { 201: UserAnswer },
    },
    handler: async (request, reply) => {
      const opened = await openedBy(request.params.token)
      checkPassword(request.body.password)
      const passwordHash = await hashPassword(request.body.password)
      const firstName = request.body.first_name ?? opened.firstName
      let user: User
      if (opened.setup) {
        const email = request.body.email
        if (!email) throw wrenError('required', 'The owner’s email is required.', 'email')
        user = await accounts.update(opened.userId, { email: normalEmail(email), firstName, passwordHash, setupToken: '' })
      } else {
        if (accounts.userByEmail(opened.email)) throw wrenError('unique', 'A member already has this email.', 'email')
        // Single use: of two acceptances at once (in any processes), one closes the invitation, the other is refused.
        if (!(await accounts.closeInvite(opened.inviteId))) throw wrenError('invalid_invite')
        user = await accounts.createUser({ email: opened.email, firstName, passwordHash, level: opened.level })
      }
      await signIn(request, reply, user)
      return reply.status(201).send(serializeMe(userPrincipal(user)))
    },
  })

  type Opened =
    | { setup: true; userId: string; email: null; firstName: string; level: number }
    | { setup: false; inviteId: string; email: string; firstName: string; level: number }

  const openedBy = async (token: string): Promise<Opened> => {
    // Made by another api process a moment ago: looked up again in the tables before the link is refused.
    await accounts.lookUp(() => accounts.inviteByToken(token) ?? accounts.ownerBySetupToken(token))
    const invite = accounts.inviteByToken(token)
    if (invite) return { setup: false, inviteId: invite.id, email: invite.targetEmail, firstName: invite.firstName, level: invite.level }
    const owner = accounts.ownerBySetupToken(token)
    if (owner) return { setup: true, userId: owner.id, email: null, firstName: owner.firstName, level: owner.level }
    throw wrenError('invalid_invite')
  }
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw wrenError('invalid_input', `This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.`, 'password')
}

/**
 * A user as PostHog's UserBasicSerializer shows one (a member's, an invitation's maker, an annotation's). PostHog's
 * `id` is its table's serial number, which clients read as a number; Wren's users are known by their uuid, so their
 * `id` is the uuid's first 48 bits: the same for a user everywhere, and a safe integer.
 */
export function userBasic(u: User) {
  return {
    id: Number.parseInt(u.id.replace(/-/g, '').slice(0, 12), 16) || 0,
    uuid: u.id,
    distinct_id: u.id,
    first_name: u.firstName,
    last_name: u.lastName,
    email: u.email,
    is_email_verified: null,
    role_at_organization: null,
  }
}

function serializeMember(u: User) {
  return {
    id: u.id,
    user: userBasic(u),
    level: u.level,
    role: roleOf(u.level),
    joined_at: u.createdAt,
    updated_at: u.updatedAt,
    is_2fa_enabled: false,
    has_social_auth: false,
    last_login: u.lastLogin,
  }
}

function teamBasic(p: Project, organizationId: string) {
  return { ...serializeProject(p, organizationId), id: p.id, name: p.name, project_id: p.id }
}

function slugOf(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'organization'
  )
}

/** The origin links point at: WREN_SITE_URL, else the request's own. */
function originOf(request: FastifyRequest, siteUrl: string | null): string {
  return siteUrl ? siteUrl.replace(/\/$/, '') : `${request.protocol}://${request.host}`
}
