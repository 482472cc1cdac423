import { jsonForScriptElement } from './json-for-script.js'
import { DEFAULT_PASSWORD_MIN_LENGTH, isPasswordMinLength } from '../passwords/password-length.js'
import { SOCIAL_PROVIDER_ID_FORMAT, SOCIAL_PROVIDER_TYPES, type SocialProvider } from '../social/social-providers.js'

/** The operator's logo (BRAND_LOGO), with the size it is shown at: width and height reserve its place before it loads. */
export interface PageLogo {
  readonly src: string
  readonly alt: string
  readonly width: number
  readonly height: number
}

/**
 * The page's background: the built-in video, none (a plain colour), or the
 * operator's poster with their video or without one (docs/branding.md).
 */
export type PageBackground =
  | { readonly kind: 'builtin' }
  | { readonly kind: 'none' }
  | { readonly kind: 'operator', readonly poster: string, readonly video: { readonly src: string, readonly type: string } | null }

/**
 * The configuration the edge server embeds in the page, as JSON in a
 * non-executing `<script type="application/json">` element. The server builds
 * it from its environment; the page reads it once at start.
 */
export interface RuntimeConfig {
  readonly productName: string
  readonly supportEmail: string
  /** Google Identity Services client id; null: the Google button is not offered. */
  readonly googleClientId: string | null
  readonly googleDisabledHostnames: readonly string[]
  readonly redirectAllowedHosts: readonly string[]
  readonly localAccountsAllowedHosts: readonly string[]
  readonly cookieDomain: string | null
  /**
   * AUTH_COOKIE_HTTPONLY: the edge sets the `auth` cookie, HttpOnly, with the
   * answer that carries it, and the page does not write it. The edge always
   * sets `refresh` itself (docs/security.md, "The token cookies").
   */
  readonly authCookieHttpOnly: boolean
  /** Whether the accounts service behind the edge completes password resets (`view=setPassword`). */
  readonly passwordResetCompletion: boolean
  /** Time limit of the domain authorization check; null: none, as the spec says. */
  readonly domainCheckTimeoutMs: number | null
  /**
   * The relying party ID passkeys are bound to (PASSKEY_RP_ID); null: the
   * accounts service answers no passkey calls, and the page offers none.
   */
  readonly passkeyRpId: string | null
  /** Whether the accounts service answers the second-factor calls (docs/second-factor.md). */
  readonly secondFactor: boolean
  /** Whether the accounts service answers the email-code calls (EMAIL_CODES, docs/email-codes.md): the page offers the emailed code. */
  readonly emailCodes: boolean
  /** Whether the code step offers "Don't ask again on this browser for 30 days". */
  readonly secondFactorRememberBrowser: boolean
  /**
   * The fewest characters of a new password (PASSWORD_MIN_LENGTH), which the
   * registration's and the new password's hint say. Left out of the page's
   * JSON at its default, 8, which is what the page reads when it is absent.
   */
  readonly passwordMinLength: number
  /** The social connections (SOCIAL_CONNECTIONS), in the operator's order: a button each. Left out of the page's JSON when empty. */
  readonly socialProviders: readonly SocialProvider[]
  /** SSO_DISCOVERY: the login and register views ask whether the typed address's domain signs in with single sign-on. */
  readonly ssoDiscovery: boolean
  /** The logo in the card's header; null: none. */
  readonly logo: PageLogo | null
  readonly background: PageBackground
}

/** Id of the element that carries the runtime configuration. */
export const RUNTIME_CONFIG_ELEMENT_ID = 'threshold-config'

/**
 * The configuration as the JSON of its `<script>` element (json-for-script.ts says what is escaped).
 * Settings at their default (no social connection, no discovery, the default password length) are left out: every byte is in every page.
 */
export function serializeRuntimeConfig (config: RuntimeConfig): string {
  const { passwordMinLength, socialProviders, ssoDiscovery, ...rest } = config
  return jsonForScriptElement({
    ...rest,
    ...(passwordMinLength === DEFAULT_PASSWORD_MIN_LENGTH ? {} : { passwordMinLength }),
    ...(socialProviders.length === 0 ? {} : { socialProviders }),
    ...(ssoDiscovery ? { ssoDiscovery } : {})
  })
}

function stringList (value: unknown): readonly string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}

function stringOrNull (value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

// The two below are the edge's own values (server/edge/brand/brand-page.ts): their shape is checked, not each field's content.
function parseLogo (value: unknown): PageLogo | null {
  const logo = value as Partial<PageLogo> | null | undefined
  return typeof logo?.src === 'string' && typeof logo.alt === 'string' && typeof logo.width === 'number' && typeof logo.height === 'number' ? logo as PageLogo : null
}

function parseBackground (value: unknown): PageBackground {
  const background = value as { kind?: unknown, poster?: unknown } | null | undefined
  if (background?.kind === 'none') return { kind: 'none' }
  return background?.kind === 'operator' && typeof background.poster === 'string' ? background as PageBackground : { kind: 'builtin' }
}

function parseSocialProviders (value: unknown): readonly SocialProvider[] {
  if (!Array.isArray(value)) return []
  return value.filter((item: Partial<SocialProvider> | null): item is SocialProvider =>
    typeof item?.id === 'string' && SOCIAL_PROVIDER_ID_FORMAT.test(item.id) && SOCIAL_PROVIDER_TYPES.includes(item.type!) &&
    typeof item.name === 'string' && (item.icon === null || typeof item.icon === 'string'))
}

/** Parses the embedded configuration; anything missing or malformed takes a safe default. */
export function parseRuntimeConfig (text: string | null | undefined): RuntimeConfig {
  let raw: Record<string, unknown> = {}
  try {
    const parsed: unknown = JSON.parse(text ?? '{}')
    if (parsed !== null && typeof parsed === 'object') raw = parsed as Record<string, unknown>
  } catch {
    // A page without a readable configuration still works with the defaults.
  }
  const timeout = raw.domainCheckTimeoutMs
  return {
    productName: stringOrNull(raw.productName) ?? 'Threshold',
    supportEmail: stringOrNull(raw.supportEmail) ?? 'support@example.com',
    googleClientId: stringOrNull(raw.googleClientId),
    googleDisabledHostnames: stringList(raw.googleDisabledHostnames),
    redirectAllowedHosts: stringList(raw.redirectAllowedHosts),
    localAccountsAllowedHosts: stringList(raw.localAccountsAllowedHosts),
    cookieDomain: stringOrNull(raw.cookieDomain),
    authCookieHttpOnly: raw.authCookieHttpOnly === true,
    passwordResetCompletion: raw.passwordResetCompletion === true,
    domainCheckTimeoutMs: typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0 ? timeout : null,
    passkeyRpId: stringOrNull(raw.passkeyRpId),
    secondFactor: raw.secondFactor === true,
    emailCodes: raw.emailCodes === true,
    secondFactorRememberBrowser: raw.secondFactorRememberBrowser !== false,
    passwordMinLength: isPasswordMinLength(raw.passwordMinLength) ? raw.passwordMinLength : DEFAULT_PASSWORD_MIN_LENGTH,
    socialProviders: parseSocialProviders(raw.socialProviders),
    ssoDiscovery: raw.ssoDiscovery === true,
    logo: parseLogo(raw.logo),
    background: parseBackground(raw.background)
  }
}
