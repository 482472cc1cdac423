import type { AuditTarget } from '../http/answers.js'
import { emailKey } from '../../shared/email-key.js'

/** Authentication events the reference service records. */
export type AuthEvent =
  | 'login.succeeded' | 'login.failed' | 'login.throttled' | 'login.slowed' | 'login.refused-organization' | 'login.refused-unverified'
  | 'login.password-breached'
  | 'password.breach-notice-sent'
  | 'register.succeeded' | 'register.repeated' | 'register.refused' | 'register.attempt-notice-sent' | 'register.attempt-notice-suppressed'
  | 'verify.email-sent' | 'verify.requested' | 'verify.suppressed' | 'verify.completed' | 'verify.refused' | 'verify.needs-known-browser'
  | 'browser.notice-sent' | 'browser.notice-suppressed' | 'sessions.link-refused'
  | 'sessions.others-ended' | 'sessions.end-others.refused'
  | 'account.claimed' | 'account.claim-notice-sent'
  | 'google.login.succeeded' | 'google.login.failed' | 'google.register.succeeded' | 'google.register.failed'
  | 'sso.started' | 'sso.returned' | 'sso.refused' | 'sso.login.succeeded' | 'sso.register.succeeded'
  | 'reset.requested' | 'reset.email-sent' | 'reset.suppressed' | 'reset.completed' | 'reset.refused'
  | 'passkey.login.succeeded' | 'passkey.login.failed' | 'passkey.login.throttled'
  | 'passkey.register.succeeded' | 'passkey.register.refused'
  | 'token.refreshed' | 'token.refused' | 'token.reuse-detected' | 'token.revoked'
  | 'second-factor.challenged' | 'second-factor.skipped' | 'second-factor.verified' | 'second-factor.failed'
  | 'second-factor.refused' | 'second-factor.throttled' | 'second-factor.browser-remembered'
  | 'second-factor.enrol.started' | 'second-factor.enrol.refused' | 'second-factor.enrol.failed' | 'second-factor.enrolled'
  | 'second-factor.removed' | 'second-factor.remove.refused' | 'second-factor.recovery-codes-renewed' | 'second-factor.recovery-codes.refused'
  | 'passkey.removed' | 'passkey.remove.refused' | 'passkey.list.refused' | 'passkey.renamed' | 'passkey.rename.refused'
  | 'password.changed' | 'password.change.refused'
  | 'second-factor.browsers-forgotten' | 'second-factor.forget-browsers.refused'
  | 'email.change-requested' | 'email.change.refused' | 'email.change-link-sent' | 'email.change-attempt-notice-sent'
  | 'email.changed' | 'email.confirm-refused' | 'email.confirm-needs-known-browser'
  | 'reauth.succeeded' | 'reauth.failed' | 'reauth.throttled'
  | 'change.notice-sent' | 'change.undone' | 'change.undo-refused' | 'recent-factors.refused'

export interface AuthEventDetails {
  readonly email?: string
  readonly accountId?: string
  readonly clientAddress?: string
  readonly reason?: string
  readonly [key: string]: unknown
}

/**
 * Logs one authentication event. Never a password or token; the email is
 * reduced to its domain and its pseudonym (a keyed hash: email-pseudonyms.ts),
 * enough to follow one address through the log without writing it down.
 */
export function logAuthEvent (target: AuditTarget, event: AuthEvent, details: AuthEventDetails = {}): void {
  const { email, ...rest } = details
  const entry: Record<string, unknown> = { audit: event, ...rest }
  if (email !== undefined) {
    const key = emailKey(email)
    entry.emailDomain = key.slice(key.lastIndexOf('@') + 1)
    entry.emailPseudonym = target.pseudonyms.of(email)
  }
  target.log.info(entry, `auth event: ${event}`)
}
