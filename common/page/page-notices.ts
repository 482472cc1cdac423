import type { MessageKey } from '../languages/message-catalogue.js'

/**
 * What the page and the reference accounts service must spell alike for
 * emailed links: the `notice` codes the service's links land on
 * (`/?view=<view>&notice=<code>`), each with the one view it belongs to and
 * the catalogue key of what it says, and the reason beside a login refused
 * because the address is not verified yet.
 */

export const PAGE_NOTICE_VIEWS = Object.freeze({
  'email-verified': 'login',
  'verify-link-invalid': 'login',
  // An account with a passkey or an app is verified only from a browser that has signed in to it.
  'verify-in-known-browser': 'login',
  // Kept for accounts services that end every session when their link is opened.
  'sessions-ended': 'setPassword',
  // "This was not me" and "this wasn't me": nothing has happened yet; the new password does it.
  'end-sessions': 'setPassword',
  'undo-change': 'setPassword',
  'end-sessions-link-invalid': 'resetPassword',
  // A new address's link: confirmed only from a browser that has signed in to the account.
  'email-changed': 'login',
  'email-change-link-invalid': 'login',
  'email-change-in-known-browser': 'login'
} as const)

export type PageNotice = keyof typeof PAGE_NOTICE_VIEWS

/**
 * The text of each code. Only the page whose address names a code carries its
 * text (server/edge/languages/message-catalogues.ts): the others leave it out.
 */
export const NOTICE_MESSAGE_KEYS: Readonly<Record<PageNotice, MessageKey>> = /* @__PURE__ */ Object.freeze({
  'email-verified': 'notice.emailVerified',
  'verify-link-invalid': 'notice.verifyLinkInvalid',
  'verify-in-known-browser': 'notice.verifyInKnownBrowser',
  'sessions-ended': 'notice.sessionsEnded',
  'end-sessions': 'notice.endSessions',
  'undo-change': 'notice.undoChange',
  'end-sessions-link-invalid': 'notice.endSessionsLinkInvalid',
  'email-changed': 'notice.emailChanged',
  'email-change-link-invalid': 'notice.emailChangeLinkInvalid',
  'email-change-in-known-browser': 'notice.emailChangeInKnownBrowser'
})

/**
 * A code's text's key as NOTICE_MESSAGE_KEYS has it: `notice.` and the code
 * in camel case. The page's first load follows the rule rather than carry
 * the table (test/build/bundle-budget.integration.test.ts); a test holds the two alike.
 */
export function noticeMessageKey (notice: PageNotice): MessageKey {
  return `notice.${notice.replace(/-(.)/g, (_dash, letter: string) => letter.toUpperCase())}` as MessageKey
}

/** Whether each code reads as a success or an error. */
export const NOTICE_KINDS: Readonly<Record<PageNotice, 'success' | 'error'>> = /* @__PURE__ */ Object.freeze({
  'email-verified': 'success',
  'verify-link-invalid': 'error',
  'verify-in-known-browser': 'error',
  'sessions-ended': 'success',
  'end-sessions': 'success',
  'undo-change': 'success',
  'end-sessions-link-invalid': 'error',
  'email-changed': 'success',
  'email-change-link-invalid': 'error',
  'email-change-in-known-browser': 'error'
})

/**
 * A code's kind as NOTICE_KINDS has it: a link that did not work ends in
 * `-invalid` or `-in-known-browser` (it must be opened elsewhere), and is an
 * error; every other code tells of something done. The page's first load
 * follows the rule rather than carry the table; a test holds the two alike.
 */
export function noticeKind (notice: PageNotice): 'success' | 'error' {
  return /-(invalid|browser)$/.test(notice) ? 'error' : 'success'
}

/** The code an address's `notice` names, when it is one. */
export function pageNoticeFrom (value: string | null): PageNotice | null {
  return value !== null && Object.hasOwn(PAGE_NOTICE_VIEWS, value) ? value as PageNotice : null
}

/** The page's address (path and query) that shows `notice` on its view, with other parameters before it. */
export function pageWithNotice (notice: PageNotice, parameters: Readonly<Record<string, string>> = {}): string {
  const query = [['view', PAGE_NOTICE_VIEWS[notice]], ...Object.entries(parameters), ['notice', notice]]
    .map(([name, value]) => `${name}=${encodeURIComponent(value!)}`)
  return `/?${query.join('&')}`
}

/** The `reason` of a 403 login refusal for an address not verified yet: the page then offers a new link. */
export const EMAIL_NOT_VERIFIED_REASON = 'email_not_verified'
