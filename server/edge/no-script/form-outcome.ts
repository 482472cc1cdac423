import type { Refusal } from '../../../common/http/accounts-answers.js'
import type { Messages } from '../../../common/languages/message-catalogue.js'
import type { PageFormState, RenderedView } from '../../../common/page/page-render.js'

/**
 * How a form post ends: the page rendered for a state, with a status that
 * says how it went (docs/no-script.md, "Statuses"), a 303 to where the
 * visitor goes next, with the cookies to set on the way, a page that
 * sends the visitor on to an identity provider (identity-provider-page.ts),
 * or the sign-out page again with what went wrong (server/edge/sessions/sign-out-page.ts).
 */
export type FormOutcome =
  | { readonly kind: 'page', readonly status: number, readonly state: PageFormState }
  | { readonly kind: 'redirect', readonly location: string, readonly cookies: readonly string[] }
  | { readonly kind: 'identity-provider', readonly location: string }
  | { readonly kind: 'sign-out', readonly status: number, readonly error: string }

const NOTHING_SAID = { notice: null, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null } as const

/** An error above the form, the fields marked, the email kept: as the page's `fail`. */
export function refused (status: number, view: RenderedView, email: string, text: string, more: Partial<PageFormState> = {}): FormOutcome {
  return { kind: 'page', status, state: { ...NOTHING_SAID, view, email, notice: { kind: 'error', text }, invalid: true, ...more } }
}

/** A success text on `view`, nothing marked: as the page's `succeed`. */
export function succeeded (view: RenderedView, email: string, text: string): FormOutcome {
  return { kind: 'page', status: 200, state: { ...NOTHING_SAID, view, email, notice: { kind: 'success', text } } }
}

/** The code step of a login whose second factor is due, in place of the login form. */
export function codeStep (email: string, challenge: string): FormOutcome {
  return { kind: 'page', status: 200, state: { ...NOTHING_SAID, view: 'login', email, secondFactorChallenge: challenge } }
}

/** What a refusal says, as the page words it: the service's own text as it came, or for a busy service that sent none, failure.busy in the page's language. */
export function refusalText (refusal: Refusal, messages: Messages): string {
  return refusal.busy === true ? messages.text('failure.busy') : refusal.message
}
