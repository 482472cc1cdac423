import { EMAIL_CODE_LIFETIME_SECONDS } from '../../../common/email-codes/email-code-format.js'
import { bindingHash, newBinding } from '../http/binding-cookie.js'
import { cookieValue } from '../http/cookie-header.js'

/**
 * The email_code_browser cookie: a random binding that ties a code to the
 * browser that asked for it, kept by the store only as its hash. A code read
 * off a phishing page, or from the mailbox on another device, signs in
 * nowhere but in the browser that asked (docs/reference-service.md). Path `/`:
 * the edge's form posts without scripts (at `/`) carry it too. HttpOnly and
 * Secure as the service's other cookies (the edge drops Secure on a loopback
 * http page only); Lax, as the code step is a same-site call.
 */
export const EMAIL_CODE_BROWSER_COOKIE = 'email_code_browser'

const BINDING_FORMAT = /^[\w-]{43}$/

/**
 * A new binding for a send, and the hash of the one the browser held before
 * (null: none), whose codes the new one replaces. Never the value the browser
 * brought: a cookie set from a sibling subdomain (or any value an attacker
 * chose) would otherwise be one he knows, and a code relayed to him would
 * work in his browser.
 */
export function newBrowserBinding (cookieHeader: string | undefined): { readonly binding: string, readonly hash: string, readonly replaces: string | null } {
  const previous = readBinding(cookieHeader)
  const binding = newBinding()
  return { binding, hash: bindingHash(binding), replaces: previous === null ? null : bindingHash(previous) }
}

/** The binding in a Cookie header, or null. */
export function readBinding (cookieHeader: string | undefined): string | null {
  const value = cookieValue(cookieHeader, EMAIL_CODE_BROWSER_COOKIE)
  return value !== undefined && BINDING_FORMAT.test(value) ? value : null
}

/** The Set-Cookie value that keeps `binding` as long as a code lives. */
export function bindingSetCookie (binding: string): string {
  return `${EMAIL_CODE_BROWSER_COOKIE}=${binding}; Max-Age=${EMAIL_CODE_LIFETIME_SECONDS}; Path=/; HttpOnly; Secure; SameSite=Lax`
}
