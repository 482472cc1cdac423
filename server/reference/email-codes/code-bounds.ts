import { EMAIL_CODE_LIFETIME_SECONDS } from '../../../common/email-codes/email-code-format.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { say, type AnswerText } from '../languages/answer-texts.js'
import { EMAIL_CODE_MEMORY_MS, type AccountStore, type EmailCodePurpose, type EmailCodeRecord, type EmailCodeSendLimits } from '../store/account-store.js'
import { sameHash, type EmailCodeHasher } from './code-hashing.js'
import { bindingHash } from '../http/binding-cookie.js'

/** The window every bound below counts over. */
export const EMAIL_CODE_WINDOW_MS = EMAIL_CODE_MEMORY_MS
/** Code emails to one address within the window: a storm of requests fills nobody's mailbox. */
export const CODE_EMAILS_PER_ADDRESS = 5
/** Code emails asked for from one address range (server/shared/address-range.ts) within the window, whatever the addresses. */
export const CODE_EMAILS_PER_RANGE = 30
/** Tries of one code, right or wrong: the fifth wrong one voids it. */
export const TRIES_PER_CODE = 5
/** Refused tries for one address within the window: then tries are refused (429) and its codes voided. */
export const WRONG_TRIES_PER_ADDRESS = 10

export const EMAIL_CODE_SEND_LIMITS: EmailCodeSendLimits = Object.freeze({
  windowMs: EMAIL_CODE_WINDOW_MS, perAddress: CODE_EMAILS_PER_ADDRESS, perRange: CODE_EMAILS_PER_RANGE
})

/** A code's lifetime in milliseconds. */
export const EMAIL_CODE_LIFETIME_MS = EMAIL_CODE_LIFETIME_SECONDS * 1000

/**
 * Why a code was refused (the 401's `reason`): `code_expired` also for a code
 * used, voided or never sent, which nothing tells apart.
 */
export type CodeRefusal = 'code_wrong' | 'code_expired' | 'code_other_browser'

/** What a try of a code found: the code, spent now; a refusal; or the address's tries spent until `retryAt`. */
export type CodeTry = { readonly proven: EmailCodeRecord } | { readonly refused: CodeRefusal } | { readonly throttled: number }

const REFUSAL_TEXT = { code_wrong: 'emailCode.wrong', code_expired: 'emailCode.expired', code_other_browser: 'emailCode.otherBrowser' } as const

/** Whole seconds until `at`, at least one: a 429's `retry_after`. */
function secondsUntil (at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000))
}

function minutesText (oneMinute: 'emailCode.tooManyCodesOneMinute' | 'emailCode.tooManyTriesOneMinute', minutes: 'emailCode.tooManyCodes' | 'emailCode.tooManyTries', seconds: number): AnswerText {
  const count = Math.ceil(seconds / 60)
  return count <= 1 ? oneMinute : { key: minutes, params: { minutes: count } }
}

/** The 429 of spent sends: the same whether the address's or the range's were spent, and whether or not the address has an account. */
export function sendsSpentAnswer (retryAt: number, now: number, facts: RequestFacts): Answer {
  const seconds = secondsUntil(retryAt, now)
  return error(429, say(facts, minutesText('emailCode.tooManyCodesOneMinute', 'emailCode.tooManyCodes', seconds)), { retry_after: seconds })
}

/** The answer to a refused try: 401 with its reason, or 429 once the address's tries are spent. */
export function refusedTryAnswer (outcome: Exclude<CodeTry, { readonly proven: EmailCodeRecord }>, now: number, facts: RequestFacts): Answer {
  if ('throttled' in outcome) {
    const seconds = secondsUntil(outcome.throttled, now)
    return error(429, say(facts, minutesText('emailCode.tooManyTriesOneMinute', 'emailCode.tooManyTries', seconds)), { retry_after: seconds })
  }
  return error(401, say(facts, REFUSAL_TEXT[outcome.refused]), { reason: outcome.refused })
}

export interface CodeTriesOptions {
  readonly store: Pick<AccountStore, 'emailCodes'>
  readonly hasher: EmailCodeHasher
  readonly now: () => number
}

/** What a try gives: the address, the code as normalised, what it is for, the browser's binding, and the account a fresh proof is for. */
export interface CodeAttempt {
  readonly email: string
  readonly code: string
  readonly purpose: EmailCodePurpose
  readonly binding: string | null
  /** A `reauthenticate` code proves only the account it was sent for. */
  readonly accountId?: string
}

/**
 * The guessing bounds (docs/reference-service.md#emailed-codes): each try of
 * the browser's own code is counted before it is compared, so that tries
 * sent at once cannot pass TRIES_PER_CODE; every refused try counts for the
 * address, and WRONG_TRIES_PER_ADDRESS of them within the window void its
 * codes and refuse further tries until the window moves on.
 */
export class CodeTries {
  constructor (private readonly options: CodeTriesOptions) {}

  async attempt (attempt: CodeAttempt, facts: RequestFacts): Promise<CodeTry> {
    const { store, hasher, now } = this.options
    const codes = store.emailCodes
    const addressHash = hasher.address(attempt.email)
    const failures = await codes.failuresSince(addressHash, now() - EMAIL_CODE_WINDOW_MS)
    if (failures.length >= WRONG_TRIES_PER_ADDRESS) {
      logAuthEvent(facts, 'email-code.refused', { email: attempt.email, clientAddress: facts.clientAddress, reason: 'address-tries-spent' })
      return { throttled: failures[WRONG_TRIES_PER_ADDRESS - 1]! + EMAIL_CODE_WINDOW_MS }
    }
    const codeHash = hasher.code(addressHash, attempt.email, attempt.code)
    const browserHash = attempt.binding === null ? null : bindingHash(attempt.binding)
    const live = (await codes.findLive(addressHash, attempt.purpose, now()))
      .filter((code) => attempt.accountId === undefined || code.accountId === attempt.accountId)
    const own = browserHash === null ? undefined : live.find((code) => sameHash(browserHash, code.bindingHash))
    // Compared with every live code alike, so that the time taken does not tell how many there are.
    const matches = live.map((code) => sameHash(codeHash, code.codeHash))
    const elsewhere = live.some((code, index) => matches[index] === true && code !== own)
    // A code another browser asked for, relayed here (read off a phishing page, or in the mailbox on another
    // device), opens nothing: it is counted as a refused try for the address, as any other.
    if (elsewhere) return await this.refuse(attempt, addressHash, 'code_other_browser', facts)
    if (own === undefined) return await this.refuse(attempt, addressHash, 'code_expired', facts)
    if (!await codes.countTry(own.id, TRIES_PER_CODE, now())) return await this.refuse(attempt, addressHash, 'code_expired', facts)
    if (sameHash(codeHash, own.codeHash)) {
      if (await codes.use(own.id, now())) return { proven: own }
      return await this.refuse(attempt, addressHash, 'code_expired', facts)
    }
    if (own.tries + 1 >= TRIES_PER_CODE) {
      await codes.voidCode(own.id, now())
      logAuthEvent(facts, 'email-code.voided', { email: attempt.email, clientAddress: facts.clientAddress, reason: 'code-tries-spent' })
    }
    return await this.refuse(attempt, addressHash, 'code_wrong', facts)
  }

  /** Counts the refused try for the address, voiding its codes when that spends its tries. */
  private async refuse (attempt: CodeAttempt, addressHash: string, refused: CodeRefusal, facts: RequestFacts): Promise<CodeTry> {
    const { store, now } = this.options
    await store.emailCodes.recordFailure(addressHash, now())
    logAuthEvent(facts, 'email-code.refused', { email: attempt.email, clientAddress: facts.clientAddress, reason: refused, purpose: attempt.purpose })
    const failures = await store.emailCodes.failuresSince(addressHash, now() - EMAIL_CODE_WINDOW_MS)
    if (failures.length >= WRONG_TRIES_PER_ADDRESS) {
      const voided = await store.emailCodes.voidAddress(addressHash, now())
      logAuthEvent(facts, 'email-code.voided', { email: attempt.email, clientAddress: facts.clientAddress, reason: 'address-tries-spent', voided })
    }
    return { refused }
  }
}
