/**
 * The embedded OpenID Connect provider (server/reference/oidc/) and the edge
 * that serves it share these names. The provider lives in the reference
 * service; every path below is public on the page's origin and proxied by
 * the edge to the reference service under the same path.
 */

/** Discovery (`${PUBLIC_URL}/.well-known/openid-configuration`): the issuer is PUBLIC_URL itself. */
export const OIDC_DISCOVERY_PATH = '/.well-known/openid-configuration'

/** Every other path of the provider starts with this one (authorization, token, userinfo, logout, interactions). */
export const OIDC_PATH_PREFIX = '/oidc/'

/**
 * What a client id may be (OIDC_CLIENTS' `client_id`, the admin command's): short, and safe in a URL, a log line and
 * a file name. The reference service refuses any other; the edge keys its per-client limits by ids of this form only.
 */
export const OIDC_CLIENT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/

/**
 * The content type of a provider answer that a browser must see as a page:
 * the reference service states what to show as JSON (ProviderPage), and the
 * edge renders it with the page's brand, stylesheet and language, so that
 * the reference service holds no markup and the browser never sees the JSON.
 */
export const PROVIDER_PAGE_TYPE = 'application/vnd.threshold.provider-page+json'

/** What the page names a client by; `uri` is the client's home page, when registered. */
export interface ProviderPageClient {
  readonly name: string
  readonly uri: string | null
}

/**
 * A page of the provider. `uiLocales` is the authorization request's
 * `ui_locales` when the page belongs to one (the edge prefers it to
 * Accept-Language). Each form posts `application/x-www-form-urlencoded` to
 * `action` (a path on the page's origin):
 * - `consent`: field `decision` = `allow` or `deny`.
 * - `logout`: fields `xsrf` (as given) and `logout` = `yes` to sign out; a post without `logout` stays signed in.
 */
export type ProviderPage =
  | {
    readonly page: 'consent'
    readonly uiLocales: string | null
    readonly client: ProviderPageClient
    /** The signed-in account's address, so the visitor sees which account consents. */
    readonly account: { readonly email: string }
    /** The scopes asked for that need consent, in the order asked: `openid`, `email`, `profile`, `offline_access`. */
    readonly scopes: readonly string[]
    readonly action: string
  }
  | {
    readonly page: 'logout'
    readonly uiLocales: string | null
    readonly client: ProviderPageClient | null
    readonly action: string
    readonly xsrf: string
  }
  | {
    readonly page: 'signed-out'
    readonly uiLocales: string | null
    readonly client: ProviderPageClient | null
  }
  | {
    readonly page: 'error'
    readonly uiLocales: string | null
    /** The OAuth error code (`invalid_request`, `invalid_client`, …): shown, never a stack or a secret. */
    readonly error: string
    readonly description: string | null
  }
