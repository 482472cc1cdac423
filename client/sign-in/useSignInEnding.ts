import { useRef, useState } from 'react'
import type { PasswordLoginAnswer } from '../../common/http/accounts-answers.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import type { Messages } from '../../common/languages/message-catalogue.js'
import { safeRedirectTarget } from '../../common/page/redirect-target.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { refusalText } from '../languages/messages.js'
import type { PageParams } from '../page/page-params.js'
import type { PageNotices } from '../page/usePageNotices.js'
import { storeSessionTokens } from '../sessions/session-cookies.js'
import { rememberLastUsed, type LastUsedMethod } from './last-used-method.js'

/** How every sign-in ends, whatever its first factor: the tokens stored, then the page leaves. */
export interface SignInEnding {
  /** Set once the page is on its way elsewhere: everything stays disabled. */
  readonly leaving: boolean
  readonly leave: (url: string) => void
  /** The first factor of the sign-in under way: once its tokens are stored, the method this browser used last (last-used-method.ts). */
  readonly noteMethod: (method: LastUsedMethod) => void
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
}

/**
 * The shared tail of a sign-in. It lives here, not in each flow, because a
 * login ends the same way whether it began with a password, Google, SSO, a
 * passkey or a second factor's code.
 */
export function useSignInEnding (
  params: Pick<PageParams, 'localAccounts' | 'redirect'>, config: RuntimeConfig, messages: Messages,
  notices: Pick<PageNotices, 'fail'>
): SignInEnding {
  const genericError = messages.text(ERROR_MESSAGE_KEYS.GENERIC)
  const [leaving, setLeaving] = useState(false)
  // A ref, not state: the page leaves in the same handler that stored the login.
  const breached = useRef(false)
  const [breachNotice, setBreachNotice] = useState(false)
  const method = useRef<LastUsedMethod | null>(null)

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
    if (params.localAccounts.kind !== 'off') return refresh !== null && storeSessionTokens({ auth, refresh }, config.cookieDomain)
    return config.authCookieHttpOnly || storeSessionTokens({ auth }, config.cookieDomain)
  }

  function storeLogin (answer: PasswordLoginAnswer, unreadableMessage: string = genericError): boolean {
    if (answer.kind === 'email-not-verified') {
      notices.fail(answer.message, true)
      return false
    }
    if (answer.kind !== 'tokens') {
      notices.fail(answer.kind === 'error' ? refusalText(answer, messages) : unreadableMessage)
      return false
    }
    // A token the browser would not keep is no sign-in: say so rather than leave signed out.
    if (!storeTokens(answer)) {
      notices.fail(genericError)
      return false
    }
    if (answer.passwordBreached) breached.current = true
    if (method.current !== null) rememberLastUsed(method.current)
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
    leaving,
    leave,
    noteMethod: (used) => { method.current = used },
    storeLogin,
    leaveToRedirect,
    breachNotice,
    leaveToTarget,
    finishLogin (answer, unreadableMessage) {
      if (storeLogin(answer, unreadableMessage)) leaveToRedirect()
    }
  }
}
