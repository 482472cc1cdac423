import { FRESH_PROOF_REQUIRED_REASON, SESSION_ENDED_REASON, SIGNED_OUT_REASON, type ProofChoice } from '../../../common/account-changes/account-changes.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { logAuthEvent, type AuthEvent } from '../audit/audit.js'
import type { Account, AccountStore, FreshProof } from '../store/account-store.js'
import type { AuthTokenClaims, TokenService } from '../sessions/tokens.js'
import type { FreshProofs } from './fresh-proofs.js'

/**
 * What a call asks of the one who makes it:
 * - `session`: an auth token whose session still lives;
 * - `proof`: that, and a proof of the account made in this browser within
 *   the window (a sign-in, or a password, passkey or code given again);
 * - `upgrade`: that, where the proof is the sign-in's own and has not been
 *   spent on a prompt-less passkey registration yet.
 */
export type OwnerNeed = 'session' | 'proof' | 'upgrade'

export interface AccountOwner {
  readonly account: Account
  readonly claims: AuthTokenClaims
  /** The browser's live proof; null when the call asked only for a session. */
  readonly proof: FreshProof | null
}

/** How a call is refused and logged when its caller is not signed in. */
export interface OwnerRefusal {
  /** The audit event of the call's refusal. */
  readonly event: AuthEvent
  /** The text of "sign in again to do this". */
  readonly signedOut: AnswerKey
}

export interface AccountOwnersOptions {
  readonly store: AccountStore
  readonly tokens: Pick<TokenService, 'verifyAuthToken' | 'isSessionLive'>
  readonly proofs: FreshProofs
  /** Whether the service asks for passkeys and codes at all (PASSKEYS, SECOND_FACTOR). */
  readonly passkeysEnabled: boolean
  readonly secondFactorEnabled: boolean
}

/**
 * The rule of docs/account-changes.md: only the owner changes an account. A
 * bearer auth token is never enough: its session must still live, and a
 * change to how the account signs in needs a fresh proof from this browser.
 */
export class AccountOwners {
  constructor (private readonly options: AccountOwnersOptions) {}

  /** The owner behind the request, or the answer that refuses it. */
  async check (authToken: string | null, facts: RequestFacts, need: OwnerNeed, refusal: OwnerRefusal): Promise<AccountOwner | Answer> {
    const claims = authToken === null ? null : await this.options.tokens.verifyAuthToken(authToken)
    const account = claims === null ? null : await this.options.store.findAccountById(claims.accountId)
    if (claims === null || account === null) {
      logAuthEvent(facts, refusal.event, { clientAddress: facts.clientAddress, reason: 'not-signed-in' })
      return error(401, say(facts, refusal.signedOut), { reason: SIGNED_OUT_REASON })
    }
    if (!await this.options.tokens.isSessionLive(claims.sessionId)) {
      logAuthEvent(facts, refusal.event, { accountId: account.id, clientAddress: facts.clientAddress, reason: 'session-ended' })
      return error(401, say(facts, 'change.sessionEnded'), { reason: SESSION_ENDED_REASON })
    }
    if (need === 'session') return { account, claims, proof: null }
    const proof = await this.options.proofs.current({ accountId: account.id, sessionId: claims.sessionId }, facts)
    const usable = proof !== null && (need === 'upgrade'
      ? proof.atSignIn && !proof.upgradeSpent
      : await this.strongEnough(proof, account))
    if (!usable) {
      logAuthEvent(facts, refusal.event, {
        accountId: account.id, clientAddress: facts.clientAddress, reason: proof === null ? 'no-fresh-proof' : need === 'upgrade' ? 'no-sign-in-proof' : 'weak-proof'
      })
      return error(403, say(facts, 'change.proofRequired'), { reason: FRESH_PROOF_REQUIRED_REASON, proof_methods: await this.proofChoices(account) })
    }
    return { account, claims, proof }
  }

  /**
   * Whether a proof is as strong as a sign-in of the account: a sign-in is
   * (by the account's own rules), and so are a passkey and a password given
   * with a code; a password alone only while the account has no second
   * factor, or a password and a stolen token would beat it.
   */
  private async strongEnough (proof: FreshProof, account: Account): Promise<boolean> {
    return proof.atSignIn || proof.method === 'otp' || proof.method === 'hwk' || !await this.hasSecondFactor(account)
  }

  /** Whether the account has an enrolled second factor (its codes are asked for at sign-in). */
  async hasSecondFactor (account: Account): Promise<boolean> {
    return this.options.secondFactorEnabled && (await this.options.store.findSecondFactor(account.id))?.enrolledAt != null
  }

  /** The ways the account can prove itself again, for the page to offer. */
  async proofChoices (account: Account): Promise<ProofChoice[]> {
    const choices: ProofChoice[] = []
    const hasSecondFactor = await this.hasSecondFactor(account)
    if (account.passwordHash !== null) choices.push(hasSecondFactor ? 'password+code' : 'password')
    else if (hasSecondFactor) choices.push('code')
    if (this.options.passkeysEnabled && (await this.options.store.listPasskeys(account.id)).length > 0) choices.push('passkey')
    choices.push('sign_in')
    return choices
  }
}

/** Whether a check answered a refusal rather than an owner. */
export function isRefusal (checked: AccountOwner | Answer): checked is Answer {
  return 'status' in checked
}
