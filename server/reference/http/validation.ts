import { domainToASCII } from 'node:url'
import { normalizeEmailCode } from '../../../common/email-codes/email-code-format.js'
import { guessablePasswordReason } from '../passwords/common-passwords.js'
import type { LoginContext } from '../sessions/tokens.js'
import type { AnswerKey, AnswerText } from '../languages/answer-texts.js'

/**
 * The rules the spec leaves to the server, applied to request bodies at the
 * boundary. Each parser returns a typed value or a message the page can show.
 */

// In common/ since the page's hint says the minimum too.
export { DEFAULT_PASSWORD_MIN_LENGTH } from '../../../common/passwords/password-length.js'
export const PASSWORD_MAX_LENGTH = 256
export const NAME_MAX_LENGTH = 100
export const CONTEXT_FIELD_MAX_LENGTH = 128
export const MAX_ALLOWED_ORGS = 20

/** A request field read, or the refusal to say (in the request's language: server/reference/languages/answer-texts.ts). */
export type Parsed<T> = { readonly ok: true, readonly value: T } | { readonly ok: false, readonly error: AnswerText }

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value })
const fail = <T>(error: AnswerText): Parsed<T> => ({ ok: false, error })

/** Characters no name or address may hold: controls, zero-width and direction overrides, which make one text look like another. */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/

/** A JSON request body's fields; anything but an object reads as having none. */
export type Body = Record<string, unknown>

export function asBody (body: unknown): Body {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Body : {}
}

/**
 * A deliverable-looking address: one @, an unquoted local part of at most 64
 * characters (no dot at either end or twice in a row), a domain with a dot.
 */
export function parseEmail (value: unknown): Parsed<string> {
  if (typeof value !== 'string') return fail('field.emailMissing')
  const email = value.trim()
  if (email === '') return fail('field.emailMissing')
  const at = email.lastIndexOf('@')
  const local = email.slice(0, at)
  const domain = email.slice(at + 1)
  const asciiDomain = domainToASCII(domain)
  const valid = at > 0 && email.length <= 254 && local.length <= 64 && !/[\s<>()[\]\\,;:"@]/.test(local) &&
    !/^\.|\.$|\.\./.test(local) &&
    !CONTROL_CHARACTERS.test(email) && asciiDomain !== '' &&
    /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(asciiDomain)
  return valid ? ok(email) : fail('field.emailInvalid')
}

/** What a new password is checked against besides its length bounds. */
export interface NewPasswordRules {
  /** PASSWORD_MIN_LENGTH (server/reference/config.ts). */
  readonly minLength: number
  /** Words a password must not merely be (server/reference/passwords/common-passwords.ts): the product's name, the email address and its local part. */
  readonly contextWords: readonly string[]
}

/**
 * NIST SP 800-63B-4: `minLength` to 256 characters, any characters, no
 * composition rules, not commonly used nor built on one (server/reference/passwords/common-passwords.ts).
 * The breach corpus is asked after this (breached-passwords/), by the caller.
 */
export function parseNewPassword (password: unknown, confirmation: unknown, rules: NewPasswordRules): Parsed<string> {
  if (typeof password !== 'string' || password === '') return fail('field.newPasswordMissing')
  const length = [...password].length
  if (length < rules.minLength) return fail({ key: 'field.passwordTooShort', params: { min: rules.minLength } })
  if (length > PASSWORD_MAX_LENGTH) return fail({ key: 'field.passwordTooLong', params: { max: PASSWORD_MAX_LENGTH } })
  const guessable = guessablePasswordReason(password, rules.contextWords)
  if (guessable !== null) return fail(guessable)
  if (confirmation !== password) return fail('field.passwordsDiffer')
  return ok(password)
}

/** A name field's refusals: each language words them around the field's own name. */
interface NameRefusals {
  readonly notText: AnswerKey
  readonly tooLong: AnswerKey
  readonly characters: AnswerKey
}

const FIRST_NAME: NameRefusals = { notText: 'field.firstNameNotText', tooLong: 'field.firstNameTooLong', characters: 'field.firstNameCharacters' }
const LAST_NAME: NameRefusals = { notText: 'field.lastNameNotText', tooLong: 'field.lastNameTooLong', characters: 'field.lastNameCharacters' }

function parseName (value: unknown, refusals: NameRefusals): Parsed<string | null> {
  if (value === undefined || value === null) return ok(null)
  if (typeof value !== 'string') return fail(refusals.notText)
  const name = value.trim()
  if (name === '') return ok(null)
  if ([...name].length > NAME_MAX_LENGTH) return fail({ key: refusals.tooLong, params: { max: NAME_MAX_LENGTH } })
  if (CONTROL_CHARACTERS.test(name)) return fail(refusals.characters)
  return ok(name)
}

/** A name an identity provider gave (a social sign-in's): kept when it would pass the register form, else left out. */
export function providedName (value: unknown): string | null {
  const parsed = parseName(value, FIRST_NAME)
  return parsed.ok ? parsed.value : null
}

function parseContextField (value: unknown, invalid: AnswerKey): Parsed<string | null> {
  if (value === undefined || value === null || value === '') return ok(null)
  if (typeof value !== 'string' || value.length > CONTEXT_FIELD_MAX_LENGTH || CONTROL_CHARACTERS.test(value)) {
    return fail(invalid)
  }
  return ok(value)
}

/**
 * An organisation's name, as memberships store it and logins name it. Only
 * the operator's command line (server/reference/admin/admin.ts) reads it, and that speaks English.
 */
export function parseOrganization (value: unknown): { readonly ok: true, readonly value: string } | { readonly ok: false, readonly error: string } {
  const parsed = parseContextField(value, 'context.allowedOrganisationsInvalid')
  if (!parsed.ok) return { ok: false, error: `An organisation's name has at most ${CONTEXT_FIELD_MAX_LENGTH} characters and no control characters.` }
  if (parsed.value === null) return { ok: false, error: 'Name an organisation.' }
  return { ok: true, value: parsed.value }
}

function parseAllowedOrgs (value: unknown): Parsed<readonly string[]> {
  if (value === undefined || value === null) return ok([])
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list) || list.length > MAX_ALLOWED_ORGS) return fail('context.allowedOrganisationsInvalid')
  const organizations: string[] = []
  for (const item of list) {
    const parsed = parseContextField(item, 'context.allowedOrganisationsInvalid')
    if (!parsed.ok) return fail('context.allowedOrganisationsInvalid')
    if (parsed.value !== null && !organizations.includes(parsed.value)) organizations.push(parsed.value)
  }
  return ok(organizations)
}

/** The context fields every login call carries: allowed organisations, resource type, cluster name. */
export function parseLoginContext (raw: unknown): Parsed<LoginContext> {
  const body = asBody(raw)
  const organizations = parseAllowedOrgs(body.insecure_allowed_orgs)
  if (!organizations.ok) return organizations
  const resourceType = parseContextField(body.resource_type, 'context.resourceTypeInvalid')
  if (!resourceType.ok) return resourceType
  const clusterName = parseContextField(body.cluster_name, 'context.clusterNameInvalid')
  if (!clusterName.ok) return clusterName
  return ok({ organizations: organizations.value, resourceType: resourceType.value, clusterName: clusterName.value })
}

export interface PasswordLogin {
  readonly email: string
  readonly password: string
  readonly context: LoginContext
}

export function parsePasswordLogin (raw: unknown): Parsed<PasswordLogin> {
  const body = asBody(raw)
  const email = parseEmail(body.email)
  if (!email.ok) return email
  if (typeof body.password !== 'string' || body.password === '') return fail('field.passwordMissing')
  if ([...body.password].length > PASSWORD_MAX_LENGTH) return fail('login.invalidCredentials')
  const context = parseLoginContext(body)
  if (!context.ok) return context
  return ok({ email: email.value, password: body.password, context: context.value })
}

/** A code emailed to the address (server/reference/email-codes/), as typed, made comparable; a missing or malformed one is refused before it is tried. */
export function parseEmailCode (value: unknown): Parsed<string> {
  if (typeof value !== 'string' || value.trim() === '') return fail('emailCode.codeMissing')
  const code = normalizeEmailCode(value)
  return code === null ? fail('emailCode.codeMalformed') : ok(code)
}

export interface EmailCodeLogin {
  readonly email: string
  readonly code: string
  readonly context: LoginContext
}

/** `email-code/login`: the address, the code, and the context fields of every login. */
export function parseEmailCodeLogin (raw: unknown): Parsed<EmailCodeLogin> {
  const body = asBody(raw)
  const email = parseEmail(body.email)
  if (!email.ok) return email
  const code = parseEmailCode(body.code)
  if (!code.ok) return code
  const context = parseLoginContext(body)
  if (!context.ok) return context
  return ok({ email: email.value, code: code.value, context: context.value })
}

export interface Registration {
  readonly email: string
  readonly password: string
  readonly firstName: string | null
  readonly lastName: string | null
}

/**
 * A registration's fields. `rules.contextWords` are the service's own (the
 * product's name); the address typed and its local part are added here.
 */
export function parseRegistration (raw: unknown, rules: NewPasswordRules): Parsed<Registration> {
  const body = asBody(raw)
  const firstName = parseName(body.first_name, FIRST_NAME)
  if (!firstName.ok) return firstName
  const lastName = parseName(body.last_name, LAST_NAME)
  if (!lastName.ok) return lastName
  const email = parseEmail(body.email)
  if (!email.ok) return email
  const localPart = email.value.slice(0, email.value.lastIndexOf('@'))
  const password = parseNewPassword(body.password, body.confirm_password, { ...rules, contextWords: [...rules.contextWords, email.value, localPart] })
  if (!password.ok) return password
  return ok({ email: email.value, password: password.value, firstName: firstName.value, lastName: lastName.value })
}

export interface PasswordChange {
  readonly token: string
  readonly password: string
}

/** A reset's completion; the account is not known before its link is used, so only the service's context words apply. */
export function parsePasswordChange (raw: unknown, rules: NewPasswordRules): Parsed<PasswordChange> {
  const body = asBody(raw)
  if (typeof body.token !== 'string' || !/^[\w-]{20,100}$/.test(body.token)) {
    return fail('resetPassword.linkMalformed')
  }
  const password = parseNewPassword(body.password, body.confirm_password, rules)
  if (!password.ok) return password
  return ok({ token: body.token, password: password.value })
}
