import { useEffect, useRef, useState } from 'react'
import type { PageFormState } from '../../common/page-render.js'
import type { RuntimeConfig } from '../../common/runtime-config.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'
import type { PasswordLoginAnswer, SuccessAnswer } from '../../common/accounts-answers.js'
import type { NoticeContent } from '../components/Notice.js'
import { showView, updateSearchParams } from './address-bar.js'
import { ERROR_MESSAGE_KEYS } from '../../common/error-messages.js'
import type { Messages } from '../../common/message-catalogue.js'
import { messageForErrorParameter, refusalText, useMessages } from '../languages/messages.js'
import type { PageParams, View } from './page-params.js'
import { loginContextFields } from '../../common/page-query.js'
import { safeRedirectTarget } from '../../common/redirect-target.js'
import { storeSessionTokens } from '../sessions/session-cookies.js'

/** What every flow reads from the page, and the ways each flow can end. */
export interface PageState {
  readonly params: PageParams
  /** The page's texts in its language, for what the flows say. */
  readonly messages: Messages
  /** The context fields every login call carries (spec §3). */
  readonly context: LoginContextFields
  /** Local-network mode: only the local login; no view switching (spec §4, §6). */
  readonly localMode: boolean
  /** The email, kept across views (spec §4). */
  readonly email: string
  readonly setEmail: (email: string) => void
  /** The error or success text above the form. */
  readonly notice: NoticeContent | null
  /** The last login was refused because the address is not verified yet: the page offers a new link. */
  readonly verificationLinkOffered: boolean
  /** The last submission was refused: the fields are marked invalid. */
  readonly invalid: boolean
  /** Set once the page is on its way elsewhere: everything stays disabled. */
  readonly leaving: boolean
  /** Shows an error and marks the fields; an offer of a new link stays (it is no answer to the fields). */
  readonly fail: (text: string) => void
  /** Shows a success text on the current view; what was refused is settled, so the marks and the offer go. */
  readonly succeed: (text: string) => void
  /** Forgets what the page said (the notice and the offer), as a new submission starts. */
  readonly clearNotice: () => void
  /** Switches view, clearing what the last view said. */
  readonly changeView: (next: View) => void
  readonly leave: (url: string) => void
  /** After a login: stores the tokens and says whether they stayed; else says why not, as finishLogin does. */
  readonly storeLogin: (answer: PasswordLoginAnswer, unreadableMessage?: string) => boolean
  /**
   * Goes to the redirect target (after storeLogin, once whatever comes between is done: the passkey upgrade);
   * after a login whose password was found in a breach, first to the notice that says so (its Continue comes back here).
   */
  readonly leaveToRedirect: () => void
  /** The breached-password notice has the card: the login's answer said `password_breached`, and the page was about to leave. */
  readonly breachNotice: boolean
  /** Goes to `redirect` when the redirect-target check allows it, else to the site origin (the SSO return's kept target). */
  readonly leaveToTarget: (redirect: string | null) => void
  /** After a login: store the tokens and go to the redirect target, else say why not (and offer a new link if that is why). */
  readonly finishLogin: (answer: PasswordLoginAnswer, unreadableMessage?: string) => void
  /** After a registration-type call: back to the login view with the success text. */
  readonly finishWithSuccess: (answer: SuccessAnswer, defaultText: string, unreadableMessage?: string) => void
}

/**
 * The state the flows share: the email, the notice (with the offer of a new
 * verification link that may come with it) and whether the page is leaving.
 * The two endings live here, not in each flow, because a login ends
 * the same way whether it began with a password, Google or SSO, and so does
 * every kind of registration. Each form's submission starts by clearing the
 * notice: what the page said before (an error, a success, a notice from the
 * address) no longer applies once the visitor acts. The spec hides only the
 * error while a request runs; a stale success, such as "You can now log in"
 * above a login that is being refused, would mislead as much.
 */
export function usePageState (params: PageParams, config: RuntimeConfig, formState: PageFormState | null = null): PageState {
  const { localAccounts } = params
  const messages = useMessages()
  const genericError = messages.text(ERROR_MESSAGE_KEYS.GENERIC)
  // A form post's state (PageFormState), when the page answers one, is where the page starts: it is what the server rendered.
  const [email, setEmail] = useState(() => formState?.email ?? params.ssoReturn?.email ?? '')
  const [notice, setNotice] = useState<NoticeContent | null>(() => {
    // At the code step, the step shows the post's refusal itself (useSecondFactor).
    if (formState !== null) return formState.secondFactorChallenge === null ? formState.notice : null
    if (params.errorParameter !== null) return { kind: 'error', text: messageForErrorParameter(params.errorParameter, messages) }
    if (localAccounts.kind === 'refused') return { kind: 'error', text: messages.text(localAccounts.reason) }
    return params.notice === null ? null : { kind: params.notice.kind, text: messages.text(params.notice.key) }
  })
  const [verificationLinkOffered, setVerificationLinkOffered] = useState(formState?.verificationLinkOffered ?? false)
  // Not derived from the notice: an error from the address (?error=) leaves the fields unmarked,
  // and starting Google clears the notice but not the marks.
  const [invalid, setInvalid] = useState(formState?.invalid ?? false)
  const [leaving, setLeaving] = useState(false)
  // A ref, not state: the page leaves in the same handler that stored the login.
  const breached = useRef(false)
  const [breachNotice, setBreachNotice] = useState(false)

  function fail (text: string): void {
    setNotice({ kind: 'error', text })
    setInvalid(true)
  }

  function succeed (text: string): void {
    setNotice({ kind: 'success', text })
    setInvalid(false)
    setVerificationLinkOffered(false)
  }

  function clearNotice (): void {
    setNotice(null)
    setVerificationLinkOffered(false)
  }

  // An effect, not a handler: the notice comes with the address the accounts service sent the
  // browser to, and says something about that moment. It was read into the state above; out of
  // the address, a reload, a bookmark or the back button does not say it again (nor does a link
  // to another view carry it), as the SSO return's parameters and a used reset token leave too.
  useEffect(() => {
    if (new URLSearchParams(window.location.search).has('notice')) {
      updateSearchParams((query) => query.delete('notice'), { replace: true })
    }
  }, [])

  function leave (url: string): void {
    setLeaving(true)
    window.location.assign(url)
  }

  /**
   * The cookies the page writes after a sign-in (docs/security.md, "The
   * token cookies"): the edge set `refresh`, HttpOnly, with the answer, and
   * `auth` too with AUTH_COOKIE_HTTPONLY; the page writes the readable
   * `auth` otherwise. A local-network answer comes from the local service,
   * past the edge: the page writes both, and a refresh token is due.
   */
  function storeTokens ({ auth, refresh }: { readonly auth: string, readonly refresh: string | null }): boolean {
    if (localAccounts.kind !== 'off') return refresh !== null && storeSessionTokens({ auth, refresh }, config.cookieDomain)
    return config.authCookieHttpOnly || storeSessionTokens({ auth }, config.cookieDomain)
  }

  function storeLogin (answer: PasswordLoginAnswer, unreadableMessage: string = genericError): boolean {
    if (answer.kind === 'email-not-verified') {
      fail(answer.message)
      setVerificationLinkOffered(true)
      return false
    }
    if (answer.kind !== 'tokens') {
      fail(answer.kind === 'error' ? refusalText(answer, messages) : unreadableMessage)
      return false
    }
    // A token the browser would not keep is no sign-in: say so rather than leave signed out.
    if (!storeTokens(answer)) {
      fail(genericError)
      return false
    }
    if (answer.passwordBreached) breached.current = true
    return true
  }

  function leaveToTarget (redirect: string | null): void {
    leave(safeRedirectTarget(redirect, window.location, {
      cookieDomain: config.cookieDomain,
      allowedHosts: config.redirectAllowedHosts
    }))
  }

  function leaveToRedirect (): void {
    if (breached.current) {
      breached.current = false
      setBreachNotice(true)
    } else {
      leaveToTarget(params.redirect)
    }
  }

  return {
    params,
    messages,
    context: loginContextFields(params),
    localMode: localAccounts.kind !== 'off',
    email,
    setEmail,
    notice,
    verificationLinkOffered,
    invalid,
    leaving,
    breachNotice,
    fail,
    succeed,
    clearNotice,
    changeView (next) {
      clearNotice()
      setInvalid(false)
      showView(next)
    },
    leave,
    storeLogin,
    leaveToRedirect,
    leaveToTarget,
    finishLogin (answer, unreadableMessage) {
      if (storeLogin(answer, unreadableMessage)) leaveToRedirect()
    },
    finishWithSuccess (answer, defaultText, unreadableMessage = genericError) {
      if (answer.kind !== 'success') {
        fail(answer.kind === 'error' ? refusalText(answer, messages) : unreadableMessage)
        return
      }
      succeed(answer.message === '' ? defaultText : answer.message)
      showView('login')
    }
  }
}
