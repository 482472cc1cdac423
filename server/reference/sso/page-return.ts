import type { Locale } from '../../../common/languages/message-catalogue.js'

/**
 * Where the browser goes at the end of the identity provider's leg: back to
 * the page, with what the page needs to finish (or an error it shows), and
 * with the context the page had when the visitor clicked the SSO button. The
 * page keeps that context in the tab itself and prefers it; the copy here
 * serves a tab that could not keep it (storage refused, another tab), and the
 * error page, where the page keeps nothing (docs/accounts-api.md).
 */

export type SsoProtocol = 'oidc' | 'saml'

/** What the page had when single sign-on started; it gets it back on return. */
export interface SsoContext {
  /** The view the visitor started from. */
  readonly source: 'login' | 'register'
  readonly redirect: string | null
  readonly resourceType: string | null
  readonly clusterName: string | null
  readonly organizations: readonly string[]
  /**
   * The language the page spoke (the start's): the page comes back in it, whatever
   * the browser's own. Absent from transactions started before it was kept.
   */
  readonly locale?: Locale
}

export function appendContext (params: URLSearchParams, context: SsoContext): void {
  if (context.redirect !== null) params.set('redirect', context.redirect)
  if (context.resourceType !== null) params.set('resource_type', context.resourceType)
  if (context.clusterName !== null) params.set('cluster_name', context.clusterName)
  for (const organization of context.organizations) params.append('allowed_org', organization)
  if (context.locale !== undefined) params.set('ui_locales', context.locale)
}

/** The page, told to complete the sign-in with the single-use `id`. */
export function pageReturnUrl (publicUrl: string, protocol: SsoProtocol, email: string, id: string, context: SsoContext): string {
  const params = new URLSearchParams({ [protocol]: '1', email, id, [context.source]: '1' })
  appendContext(params, context)
  return `${publicUrl}/?${params.toString()}`
}

/**
 * The page showing `message` (the page shows unknown error values verbatim),
 * on the view the visitor started from when that is known.
 */
export function pageErrorUrl (publicUrl: string, message: string, context: SsoContext | null): string {
  const params = new URLSearchParams({ error: message })
  if (context !== null) {
    if (context.source === 'register') params.set('view', 'register')
    appendContext(params, context)
  }
  return `${publicUrl}/?${params.toString()}`
}
