import { SOCIAL_LINK_RETURN_PARAMETER, SOCIAL_RETURN_PARAMETER } from '../../../common/social/social-providers.js'
import { appendContext, pageErrorUrl, type SsoContext } from '../sso/page-return.js'

/**
 * Where the browser goes at the end of a provider's leg: back to the page,
 * with the single-use id it completes with, and the context it had (as
 * single sign-on's return does: server/reference/sso/page-return.ts); or, for a link
 * started from the account view, back to that view.
 */

/** Why a leg was started: a sign-in from the login or register view, or a link from the account view. */
export type SocialIntent =
  | { readonly purpose: 'login', readonly context: SsoContext }
  | { readonly purpose: 'link', readonly accountId: string, readonly locale: SsoContext['locale'] }

/** The page, told to complete with the single-use `id`. */
export function socialReturnUrl (publicUrl: string, provider: string, id: string, intent: SocialIntent): string {
  if (intent.purpose === 'link') {
    const params = new URLSearchParams({ view: 'account', [SOCIAL_LINK_RETURN_PARAMETER]: provider, id })
    if (intent.locale !== undefined) params.set('ui_locales', intent.locale)
    return `${publicUrl}/?${params.toString()}`
  }
  const params = new URLSearchParams({ [SOCIAL_RETURN_PARAMETER]: provider, id, [intent.context.source]: '1' })
  appendContext(params, intent.context)
  return `${publicUrl}/?${params.toString()}`
}

/** The page showing `message`, on the view the leg started from when that is known. */
export function socialErrorUrl (publicUrl: string, message: string, intent: SocialIntent | null): string {
  if (intent?.purpose === 'link') {
    const params = new URLSearchParams({ view: 'account', error: message })
    if (intent.locale !== undefined) params.set('ui_locales', intent.locale)
    return `${publicUrl}/?${params.toString()}`
  }
  return pageErrorUrl(publicUrl, message, intent?.context ?? null)
}
