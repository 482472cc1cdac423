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

/** The browser's binding: the one its cookie holds, or a new one when it has none (or one that is no binding). */
export function browserBinding (cookieHeader: string | undefined): { readonly binding: string, readonly hash: string } {
  const binding = readBinding(cookieHeader) ?? newBinding()
  return { binding, hash: bindingHash(binding) }
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
