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
  | 'sessions.others-ended' | 'sessions.end-others.refused' | 'sessions.ended' | 'sessions.end.refused'
  | 'account.read-refused' | 'account.deleted' | 'account.delete-refused'
  | 'account.claimed' | 'account.claim-notice-sent'
  | 'google.login.succeeded' | 'google.login.failed' | 'google.register.succeeded' | 'google.register.failed'
  | 'sso.started' | 'sso.returned' | 'sso.refused' | 'sso.login.succeeded' | 'sso.register.succeeded'
  | 'sso.required-refused'
  | 'social.started' | 'social.returned' | 'social.refused' | 'social.login.succeeded' | 'social.login.refused' | 'social.registered'
  | 'social.linked' | 'social.link.refused' | 'social.unlinked' | 'social.unlink.refused'
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
  | 'email-code.sent' | 'email-code.email-sent' | 'email-code.refused' | 'email-code.voided' | 'email-code.login.succeeded' | 'email-code.registered'

export interface AuthEventDetails {
  readonly email?: string
  readonly accountId?: string
  readonly clientAddress?: string
  readonly reason?: string
  readonly [key: string]: unknown
}

/**
 * The events an account's owner sees in the account view's recent activity
 * (`activity/list`, docs/account-changes.md), as its kinds name them (and
 * `browser-remembered`, which the overview counts): one table, so that
 * every place that logs one of these events records it for the owner too.
 */
const ACTIVITY_OF_EVENT: Partial<Readonly<Record<AuthEvent, { readonly kind: string, readonly method: string | null }>>> = {
  'login.succeeded': { kind: 'sign-in', method: 'password' },
  'google.login.succeeded': { kind: 'sign-in', method: 'google' },
  'sso.login.succeeded': { kind: 'sign-in', method: 'sso' },
  'social.login.succeeded': { kind: 'sign-in', method: 'social' },
  'passkey.login.succeeded': { kind: 'sign-in', method: 'passkey' },
  'email-code.login.succeeded': { kind: 'sign-in', method: 'email-code' },
  'login.failed': { kind: 'sign-in-failed', method: 'password' },
  'second-factor.failed': { kind: 'sign-in-failed', method: null },
  'reset.completed': { kind: 'password-changed', method: null },
  'password.changed': { kind: 'password-changed', method: null },
  'email.changed': { kind: 'email-changed', method: null },
  'passkey.register.succeeded': { kind: 'passkey-added', method: null },
  'passkey.removed': { kind: 'passkey-removed', method: null },
  'social.linked': { kind: 'social-linked', method: null },
  'social.unlinked': { kind: 'social-unlinked', method: null },
  'second-factor.enrolled': { kind: 'second-factor-on', method: null },
  'second-factor.removed': { kind: 'second-factor-off', method: null },
  'second-factor.recovery-codes-renewed': { kind: 'recovery-codes-renewed', method: null },
  'sessions.others-ended': { kind: 'sessions-ended', method: null },
  'sessions.ended': { kind: 'sessions-ended', method: null },
  'change.undone': { kind: 'sessions-ended', method: null },
  'second-factor.browser-remembered': { kind: 'browser-remembered', method: null }
}

/**
 * Logs one authentication event, and keeps it for the account's owner
 * where it is one she sees (ACTIVITY_OF_EVENT) and names her account. Never a password or token; the email is
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
  const activity = ACTIVITY_OF_EVENT[event]
  if (activity !== undefined && details.accountId !== undefined) target.activity?.(details.accountId, activity.kind, activity.method)
}
