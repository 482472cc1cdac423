import type { AccountStore, EmailLinkPurpose, OpenedEmailLink } from '../store/account-store.js'
import { ACCOUNTS_PATH } from '../http/exposed-routes.js'
import type { Mailer } from './mailer.js'
import { hashToken, newOpaqueToken } from '../sessions/tokens.js'
import { inPageLanguage } from '../languages/page-language.js'
import type { Locale } from '../../../common/languages/message-catalogue.js'

/** What every service that emails an account's owner works with. */
export interface OwnerEmailing {
  readonly store: AccountStore
  readonly mailer: Mailer
  /** The page's origin, which links in emails start with. */
  readonly publicUrl: string
  readonly productName: string
  readonly now: () => number
}

/** A password reset link works once, for 30 minutes. */
export const RESET_TOKEN_TTL_MS = 30 * 60 * 1000
/** A verification link works for a day: it may wait in an inbox overnight. */
export const VERIFY_LINK_TTL_MS = 24 * 60 * 60 * 1000
/** A "was this you?" link works for a week: the owner may read the email days later. */
export const END_SESSIONS_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000

/** The purposes of links that go out in emails (a review token goes to the page instead). */
export type EmailedLinkPurpose = Exclude<EmailLinkPurpose, 'review-factors'>

const LINK_PATHS: Readonly<Record<EmailedLinkPurpose, string>> = {
  'verify-email': 'verifyEmail',
  'end-sessions': 'endSessions',
  'undo-change': 'undoChange',
  'change-email': 'confirmEmail'
}

const LINK_TTL_MS: Readonly<Record<EmailedLinkPurpose, number>> = {
  'verify-email': VERIFY_LINK_TTL_MS,
  'end-sessions': END_SESSIONS_LINK_TTL_MS,
  // "This wasn't me" under a change is read as late as "was this you?" under a sign-in.
  'undo-change': END_SESSIONS_LINK_TTL_MS,
  // A new address is confirmed as a new account's is.
  'change-email': VERIFY_LINK_TTL_MS
}

/** The shape of a token in a link; anything else is refused before the store is asked. */
export const LINK_TOKEN_FORMAT = /^[\w-]{43}$/

/**
 * Makes a single-use link for `purpose` to email to the account's owner: the
 * store keeps only the token's hash, the email holds the token. The link
 * carries the email's language, which the page it leads to then speaks.
 */
export async function issueEmailLink (
  store: AccountStore,
  options: { purpose: EmailedLinkPurpose, accountId: string, publicUrl: string, now: number, locale: Locale, subject?: string }
): Promise<string> {
  const token = newOpaqueToken()
  await store.insertEmailLink({
    tokenHash: hashToken(token),
    accountId: options.accountId,
    purpose: options.purpose,
    expiresAt: options.now + LINK_TTL_MS[options.purpose],
    subject: options.subject ?? null
  }, options.now)
  return inPageLanguage(`${options.publicUrl}${ACCOUNTS_PATH}/${LINK_PATHS[options.purpose]}?token=${token}`, options.locale)
}

/** Uses a link's token once; its account, or null for a forged, used, expired or foreign one. */
export async function consumeEmailLink (store: AccountStore, purpose: EmailLinkPurpose, token: unknown, now: number): Promise<string | null> {
  return (await openEmailLink(store, purpose, token, now))?.accountId ?? null
}

/** Whether a link's token would still work, without using it: the link with its subject, or null. */
export async function peekEmailLink (store: AccountStore, purpose: EmailLinkPurpose, token: unknown, now: number): Promise<OpenedEmailLink | null> {
  if (typeof token !== 'string' || !LINK_TOKEN_FORMAT.test(token)) return null
  return await store.findEmailLink(purpose, hashToken(token), now)
}

/** Uses a link's token once, as consumeEmailLink does: the link with its subject, or null. */
export async function openEmailLink (store: AccountStore, purpose: EmailLinkPurpose, token: unknown, now: number): Promise<OpenedEmailLink | null> {
  if (typeof token !== 'string' || !LINK_TOKEN_FORMAT.test(token)) return null
  return await store.consumeEmailLink(purpose, hashToken(token), now)
}
