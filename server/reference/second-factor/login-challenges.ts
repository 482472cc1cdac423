import { PASSWORD_BREACHED_FIELD } from '../../../common/breached-passwords/breached-password.js'
import { logAuthEvent } from '../audit/audit.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import { hashToken, newOpaqueToken, type AuthenticationMethod, type LoginContext } from '../sessions/tokens.js'
import type { Account, SecondFactorChallenge, SecondFactorChallengeKind } from '../store/account-store.js'
import type { SecondFactorsOptions } from './second-factors.js'

/** How long a login may wait for its second factor: the challenge's life. */
const SECOND_FACTOR_CHALLENGE_TTL_MS = 5 * 60 * 1000

/** The first factors a second may follow: a password, Google, a code emailed to the account's address. */
export type FirstFactor = 'pwd' | 'google' | 'email' | 'social'

/** What the first factor proved beyond the account: whether it was this browser's own (AfterFirstFactor.completeLogin). */
export interface FirstFactorProof {
  readonly provesBrowser?: boolean
}

/**
 * What a challenge record's context holds: the login's context fields, and
 * whether its password was found in the breach corpus, so that the answer
 * with the tokens carries the flag (common/breached-passwords/breached-password.ts) after the
 * code. `provesNoBrowser`: the first factor was a Google token the page did
 * not ask for (AfterFirstFactor.completeLogin).
 */
type ChallengeContext = LoginContext & { readonly passwordBreached?: true, readonly provesNoBrowser?: true }

/** Issues the tokens of a login (AfterFirstFactor.completeLogin). */
export type CompleteLogin = (account: Account, context: LoginContext, method: AuthenticationMethod, facts: RequestFacts, firstFactor?: FirstFactorProof) => Promise<Answer>

export type LoginChallengesOptions = Pick<SecondFactorsOptions,
  'store' | 'settings' | 'rememberedBrowsers' | 'completeLogin' | 'now' | 'scope'
>

/**
 * A login waiting for its second factor (docs/second-factor.md): the
 * challenge its first factor was answered with, for a code (`code`) or for
 * an enrolment an organisation requires (`enrol`), and the tokens once the
 * code is right.
 */
export class LoginChallenges {
  constructor (private readonly options: LoginChallengesOptions) {}

  async issue (
    account: Account, kind: SecondFactorChallengeKind, context: LoginContext, method: FirstFactor, facts: RequestFacts,
    passwordBreached: Promise<boolean>, firstFactor: FirstFactorProof
  ): Promise<Answer> {
    const challenge = newOpaqueToken()
    // In the record's context JSON, as refresh tokens keep their method in theirs: no new column for one flag.
    const carried: ChallengeContext = {
      ...context, ...await passwordBreached ? { passwordBreached: true } : {}, ...firstFactor.provesBrowser === false ? { provesNoBrowser: true } : {}
    }
    await this.options.store.insertSecondFactorChallenge({
      challengeHash: hashToken(challenge),
      accountId: account.id,
      kind,
      context: JSON.stringify(carried),
      method,
      expiresAt: this.options.now() + SECOND_FACTOR_CHALLENGE_TTL_MS
    })
    logAuthEvent(facts, 'second-factor.challenged', { accountId: account.id, clientAddress: facts.clientAddress, kind, method })
    return { status: 200, body: { second_factor: kind, challenge, expires_in: SECOND_FACTOR_CHALLENGE_TTL_MS / 1000 } }
  }

  /** The challenge and its account, if the challenge is live, of `kind` and of a login on this listener. */
  async find (challenge: string, kind: SecondFactorChallengeKind): Promise<{ challenge: SecondFactorChallenge, account: Account } | null> {
    const { store } = this.options
    const found = await store.findSecondFactorChallenge(hashToken(challenge), this.options.now())
    if (found === null || found.kind !== kind || (JSON.parse(found.context) as ChallengeContext).scope !== this.options.scope) return null
    const account = await store.findAccountById(found.accountId)
    return account === null ? null : { challenge: found, account }
  }

  /** Ends the login the challenge held: tokens for its context, amr with 'otp', and the remembered-browser cookie when asked. */
  async finishLogin (account: Account, challenge: SecondFactorChallenge, rememberBrowser: boolean, facts: RequestFacts): Promise<Answer> {
    const method = `${challenge.method as FirstFactor}+otp` as const
    const { passwordBreached, provesNoBrowser, ...context } = JSON.parse(challenge.context) as ChallengeContext
    const tokens = await this.options.completeLogin(account, context, method, facts, { provesBrowser: provesNoBrowser !== true })
    const answer = tokens.status === 200 && passwordBreached === true ? { ...tokens, body: { ...tokens.body, [PASSWORD_BREACHED_FIELD]: true } } : tokens
    if (answer.status !== 200 || !rememberBrowser || !this.options.settings.rememberBrowser) return answer
    logAuthEvent(facts, 'second-factor.browser-remembered', { accountId: account.id, clientAddress: facts.clientAddress })
    return { ...answer, cookies: [...answer.cookies ?? [], this.options.rememberedBrowsers.setCookie(account.id, this.options.now())] }
  }
}
