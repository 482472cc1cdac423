import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { asBody, parseNewPassword, type Parsed } from '../http/validation.js'
import { say } from '../languages/answer-texts.js'
import { breachRefusalReason, type NewPasswords } from '../passwords/new-passwords.js'
import type { Account, AccountStore } from '../store/account-store.js'
import { isRefusal, type AccountOwners } from './account-owner.js'
import type { ChangeNotices } from './change-notices.js'

export interface PasswordChangeOptions {
  readonly store: AccountStore
  /** Who may change the account (account-owner.ts). */
  readonly owners: AccountOwners
  /** The rules and the breach check every new password passes. */
  readonly newPasswords: NewPasswords
  /** Tells the owner her password changed. */
  readonly changeNotices: ChangeNotices
  readonly now: () => number
}

interface PasswordChangeRequest {
  readonly newPassword: string
  readonly endOtherSessions: boolean
}

/** `{ newPassword, endOtherSessions }`, the password by registration's rules (with the account's address as a word it must not be). */
function parsePasswordChangeRequest (raw: unknown, newPasswords: NewPasswords, account: Account): Parsed<PasswordChangeRequest> {
  const body = asBody(raw)
  const endOtherSessions = body.endOtherSessions ?? false
  if (typeof endOtherSessions !== 'boolean') return { ok: false, error: 'password.endOtherSessionsInvalid' }
  const localPart = account.email.slice(0, account.email.lastIndexOf('@'))
  const rules = { ...newPasswords.rules, contextWords: [...newPasswords.rules.contextWords, account.email, localPart] }
  // The API asks for the password once: the page compares its two fields itself.
  const password = parseNewPassword(body.newPassword, body.newPassword, rules)
  return password.ok ? { ok: true, value: { newPassword: password.value, endOtherSessions } } : password
}

/**
 * `password/change`: the signed-in owner chooses a new password, with a
 * fresh proof (docs/account-changes.md), by registration's rules and
 * breach check. An account without one (passkey, Google or SSO only) sets
 * one this way. What the old password could still do stops: reset links
 * sent before, and sign-ins waiting for their code; with
 * `endOtherSessions`, every session but the caller's ends too. The owner
 * is told by email, with the "this wasn't me" link of every change.
 */
export class PasswordChange {
  constructor (private readonly options: PasswordChangeOptions) {}

  async change (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, newPasswords } = this.options
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'password.change.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account, claims } = owner
    const parsed = parsePasswordChangeRequest(body, newPasswords, account)
    if (!parsed.ok) {
      logAuthEvent(facts, 'password.change.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'invalid' })
      return error(400, say(facts, parsed.error))
    }
    const hashed = await newPasswords.hashUnlessBreached(parsed.value.newPassword, facts)
    if ('refused' in hashed) {
      logAuthEvent(facts, 'password.change.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: breachRefusalReason(hashed.refused) })
      return hashed.refused
    }
    const now = this.options.now()
    await store.updatePasswordHash(account.id, hashed.hash)
    await store.voidResetTokens(account.id, now)
    await store.voidSecondFactorChallenges(account.id)
    // The proofs made in the ended sessions end with them (fresh-proofs.ts binds each to its session); the caller's stays.
    const otherSessionsEnded = parsed.value.endOtherSessions ? await store.revokeOtherSessions(account.id, claims.sessionId, now) : 0
    const hadPassword = account.passwordHash !== null
    logAuthEvent(facts, 'password.changed', { accountId: account.id, clientAddress: facts.clientAddress, hadPassword, otherSessionsEnded })
    this.options.changeNotices.tellOwner(account, { kind: hadPassword ? 'password' : 'password-set' }, facts)
    return successAnswer(say(facts, 'password.changed'))
  }
}
