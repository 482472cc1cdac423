import { pageWithNotice } from '../../../common/page/page-notices.js'
import type { RequestFacts } from '../http/answers.js'
import { logAuthEvent } from '../audit/audit.js'
import { openEmailLink, peekEmailLink } from '../emails/email-links.js'
import { inPageLanguage } from '../languages/page-language.js'
import type { AccountStore, OpenedEmailLink } from '../store/account-store.js'
import { hashToken } from '../sessions/tokens.js'

/**
 * What a completed reset used to set the new password: a reset link, or a
 * "this was not me" link (under a new browser's sign-in) or a "this wasn't me"
 * link (under a change), whose work is done only now. Opening such a link
 * changes nothing (landOnNewPassword): mail scanners open every link of an
 * email, and the owner's own change must not be undone by one.
 */
export type RedeemedPasswordLink =
  | { readonly via: 'reset' | 'end-sessions', readonly accountId: string }
  | { readonly via: 'undo-change', readonly accountId: string, readonly link: OpenedEmailLink }

/** Where a forged, used or expired "this was not me" or "this wasn't me" link lands: the reset view, which says so. */
const END_SESSIONS_LINK_REFUSED_PAGE = pageWithNotice('end-sessions-link-invalid')

/** The emailed links that lead to a new password, and their audit names when refused. */
const OWNER_LINKS = {
  'end-sessions': { notice: 'end-sessions', refused: 'sessions.link-refused' },
  'undo-change': { notice: 'undo-change', refused: 'change.undo-refused' }
} as const

/**
 * `GET endSessions?token=` and `GET undoChange?token=`: where the browser
 * goes, in the link's language. A link that still works lands on the
 * set-password view with its token and a notice saying what saving the new
 * password will do; it is not used yet. A forged, used or expired one lands on
 * the reset view, which says so.
 */
export async function landOnNewPassword (
  store: AccountStore,
  options: { readonly purpose: keyof typeof OWNER_LINKS, readonly publicUrl: string, readonly now: number },
  token: unknown,
  facts: RequestFacts
): Promise<string> {
  const { notice, refused } = OWNER_LINKS[options.purpose]
  if (typeof token !== 'string' || await peekEmailLink(store, options.purpose, token, options.now) === null) {
    logAuthEvent(facts, refused, { clientAddress: facts.clientAddress })
    return inPageLanguage(`${options.publicUrl}${END_SESSIONS_LINK_REFUSED_PAGE}`, facts.locale)
  }
  return inPageLanguage(`${options.publicUrl}${pageWithNotice(notice, { token })}`, facts.locale)
}

/** Uses the token a reset's completion brought, whichever link it came in: null for none that works. */
export async function redeemPasswordLink (store: AccountStore, token: string, now: number): Promise<RedeemedPasswordLink | null> {
  const resetAccount = await store.consumeResetToken(hashToken(token), now)
  if (resetAccount !== null) return { via: 'reset', accountId: resetAccount }
  const endSessions = await openEmailLink(store, 'end-sessions', token, now)
  if (endSessions !== null) return { via: 'end-sessions', accountId: endSessions.accountId }
  const undoChange = await openEmailLink(store, 'undo-change', token, now)
  return undoChange === null ? null : { via: 'undo-change', accountId: undoChange.accountId, link: undoChange }
}
