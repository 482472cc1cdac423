import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer as success, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { SECOND_FACTOR_REQUIRED_REASON } from '../second-factor/second-factor-requirement.js'
import type { TokenScope, TokenService } from './tokens.js'

export interface SessionTokensOptions {
  readonly tokens: TokenService
  /** SECOND_FACTOR: whether an organisation's requirement is checked at refresh. */
  readonly secondFactors: boolean
}

/** A refresh token as a body or cookie may carry it: a string of bounded length. */
function isRefreshToken (value: unknown): value is string {
  return typeof value === 'string' && value.length <= 200
}

/** `token/refresh` and `token/revoke`: a session goes on with new tokens, or ends. */
export class SessionTokens {
  constructor (private readonly options: SessionTokensOptions) {}

  /** Token refresh; `scope`: the listener's (local-network mode's own), which refreshes only its own tokens. */
  async refresh (refreshToken: unknown, facts: RequestFacts, scope?: TokenScope): Promise<Answer> {
    if (!isRefreshToken(refreshToken)) return error(400, say(facts, 'session.refreshRequired'))
    const outcome = await this.options.tokens.rotate(refreshToken, {
      secondFactors: this.options.secondFactors, signal: facts.signal, ...(scope === undefined ? {} : { scope })
    })
    if ('unspent' in outcome) {
      // Nobody reads this answer; a line without the token, as for a password check the gate refused.
      facts.log.info({ reason: outcome.unspent }, 'refresh not made: the client went away, its token is left unspent')
      return { ...error(503, say(facts, 'failure.busy')), headers: { 'retry-after': '1' } }
    }
    if ('refused' in outcome) {
      logAuthEvent(facts, outcome.refused === 'reused' ? 'token.reuse-detected' : 'token.refused', {
        clientAddress: facts.clientAddress, reason: outcome.refused
      })
      return outcome.refused === 'second-factor-required'
        ? error(401, say(facts, 'session.secondFactorRequired'), { reason: SECOND_FACTOR_REQUIRED_REASON })
        : error(401, say(facts, 'session.ended'))
    }
    logAuthEvent(facts, 'token.refreshed', { accountId: outcome.accountId, clientAddress: facts.clientAddress })
    return { status: 200, body: { ...outcome.tokens } }
  }

  async revoke (refreshToken: unknown, facts: RequestFacts): Promise<Answer> {
    if (!isRefreshToken(refreshToken)) return error(400, say(facts, 'session.refreshRequired'))
    await this.options.tokens.revoke(refreshToken)
    logAuthEvent(facts, 'token.revoked', { clientAddress: facts.clientAddress })
    return success(say(facts, 'session.loggedOut'))
  }
}
