import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import type { AccountStore } from '../store/account-store.js'
import type { CodeCheck } from './code-check.js'
import { parseCodeRequest } from './code-requests.js'
import { secondFactorThrottleKey, type CodeThrottle } from './code-throttle.js'
import type { LoginChallenges } from './login-challenges.js'

/** The answer to a challenge that is not (or no longer) a live one of this listener's logins. */
export const NO_CHALLENGE: AnswerKey = 'secondFactor.noChallenge'

export interface CodeStepOptions {
  readonly store: AccountStore
  readonly challenges: LoginChallenges
  readonly throttle: CodeThrottle
  readonly codes: CodeCheck
  readonly now: () => number
}

/** `second-factor/verify`: an authenticator code or a recovery code for a login's `code` challenge, and then its tokens. */
export class CodeStep {
  constructor (private readonly options: CodeStepOptions) {}

  async verify (body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, challenges, throttle } = this.options
    const parsed = parseCodeRequest(body, { codeRequired: true, recoveryAllowed: true })
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const { challenge: presented, code, rememberBrowser } = parsed.value
    if (presented === null) return error(400, say(facts, 'secondFactor.challengeRequired'))
    const found = await challenges.find(presented, 'code')
    if (found === null) {
      logAuthEvent(facts, 'second-factor.refused', { clientAddress: facts.clientAddress, reason: 'no-challenge' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    const { account, challenge } = found
    const locked = await throttle.locked(account, facts)
    if (locked !== null) return locked
    const factor = await store.findSecondFactor(account.id)
    if (factor?.enrolledAt == null) {
      // Removed by the admin command since the challenge was issued.
      logAuthEvent(facts, 'second-factor.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'not-enrolled' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    const now = this.options.now()
    // Counted on the code step's lock when it is not the account's.
    const matched = await this.options.codes.match(account, factor, code!)
    if (typeof matched !== 'string') return await throttle.wrongCode(account, facts, 'second-factor.failed', matched.mismatch)
    if (!await store.consumeSecondFactorChallenge(challenge.challengeHash, now)) {
      logAuthEvent(facts, 'second-factor.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'challenge-spent' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    await throttle.clear([secondFactorThrottleKey(account.id)])
    const left = matched === 'recovery-code' ? await store.countUnusedRecoveryCodes(account.id) : undefined
    logAuthEvent(facts, 'second-factor.verified', { accountId: account.id, clientAddress: facts.clientAddress, via: matched, recoveryCodesLeft: left })
    return await challenges.finishLogin(account, challenge, rememberBrowser, facts)
  }
}
