/**
 * The social connections an operator configures (SOCIAL_CONNECTIONS,
 * docs/social-sign-in.md): Sign in with Apple, Microsoft's identity platform,
 * GitHub and any OpenID Connect or OAuth 2.0 provider. What the page, the
 * edge and the accounts service share of them: the public part only, never a
 * secret.
 */

export const SOCIAL_PROVIDER_TYPES = ['apple', 'microsoft', 'github', 'oidc', 'oauth2'] as const

export type SocialProviderType = typeof SOCIAL_PROVIDER_TYPES[number]

/** What the page knows of one configured provider: enough to draw its button. */
export interface SocialProvider {
  /** The connection's id (`apple`, `github`, `gitlab`…): lower-case letters, digits and dashes, 1 to 32. */
  readonly id: string
  readonly type: SocialProviderType
  /** The name on its button ("Apple", "Microsoft", "GitHub", or the operator's for a generic connection). */
  readonly name: string
  /** A generic connection's icon, served by the edge from its own origin (SOCIAL_ICON_PATH); null: none. */
  readonly icon: string | null
}

/** A connection id: what `login_method`, the return address and the last-used mark name it by. */
export const SOCIAL_PROVIDER_ID_FORMAT = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/

/** The ids the page's other methods take in `login_method`, which no connection may take. */
export const RESERVED_SOCIAL_IDS: ReadonlySet<string> = new Set(['google', 'saml', 'oidc', 'custom_sso', 'custom-sso', 'sso', 'email_code', 'email-code', 'password', 'passkey', 'social'])

/** The `login_method` value that allows a connection, beside GOOGLE: its id in capitals (APPLE, MICROSOFT, GITHUB, GITLAB…). */
export const socialLoginMethod = (id: string): string => id.toUpperCase()

/** The `login_method` of `v2/auth/login` that completes a social sign-in with the single-use id of its return. */
export const SOCIAL_COMPLETION_METHOD = 'SOCIAL'

/**
 * The return to the page after the provider's leg: `?social=<id>&id=<single use>&login=1` (or `register=1`)
 * with the context, or `?view=account&social_link=<id>&id=<single use>` after linking from the account view.
 */
export const SOCIAL_RETURN_PARAMETER = 'social'
export const SOCIAL_LINK_RETURN_PARAMETER = 'social_link'

/** Where the edge serves a generic connection's icon: `${SOCIAL_ICON_PATH}<id>.svg` or `.png`. */
export const SOCIAL_ICON_PATH = '/social-icons/'

/** One provider as the account view shows it (`account/overview`'s `social`). */
export interface LinkedSocialProvider {
  readonly provider: string
  /** The address the provider vouched for when it was linked; null when not linked. */
  readonly email: string | null
  /** When it was linked (milliseconds since the epoch); null when not linked. */
  readonly linkedAt: number | null
}
