import type { SocialConnection } from '../../shared/social/social-connections.js'

/** Who a social provider says the visitor is, once its answer has been verified. */
export interface SocialIdentity {
  /** The provider's stable identifier for the user (OIDC `sub`, GitHub's numeric id): what a link is keyed by. */
  readonly subject: string
  /** The address the provider names; null when it names none. */
  readonly email: string | null
  /** True only when the provider vouches for the address (per its own documented rules). */
  readonly emailVerified: boolean
  /** The name, where the provider gives one (Apple only on the first sign-in). */
  readonly firstName: string | null
  readonly lastName: string | null
}

/** The secrets of one authorization request, kept server-side until the provider answers. */
export interface SocialRequestSecrets {
  readonly state: string
  /** PKCE (S256). */
  readonly codeVerifier: string
  /** OpenID Connect providers; null for OAuth 2.0 ones (GitHub, `oauth2`), which have no ID token. */
  readonly nonce: string | null
}

/** Where a provider sends the browser back: the GET callback, or Apple's form_post target. */
export interface SocialReturnUrls {
  readonly callback: string
  readonly formPost: string
}

/** One provider's side of the protocol: the authorization request, and the verification of its answer. */
export interface SocialProviderClient {
  /** The URL to send the browser to for a new request, and the secrets to keep until the provider answers. */
  begin (): Promise<{ readonly url: string, readonly secrets: SocialRequestSecrets }>
  /**
   * Verifies the provider's answer (the callback's query, or the fields Apple posts) against the request's
   * secrets: exchanges the code, checks what the protocol asks, and names the identity; throws when anything
   * does not verify. The state has been matched to the transaction already.
   */
  finish (answer: URLSearchParams, secrets: SocialRequestSecrets): Promise<SocialIdentity>
}

/** Makes the client of one connection. */
export type SocialClientFactory<C extends SocialConnection = SocialConnection> =
  (connection: C, urls: SocialReturnUrls, now: () => number) => SocialProviderClient
