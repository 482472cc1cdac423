import type { FastifyBaseLogger } from 'fastify'
import type { AnswerKey } from '../languages/answer-texts.js'
import type { BreachCheckPurpose, ReferenceMetrics } from '../metrics/metrics.js'
import { RangeClient, type RangeFailure, type RangeLookup } from './range-client.js'
import type { BreachedPasswordSettings } from './settings.js'

/** Why a new password is refused after the corpus was asked: its status and text. */
export interface BreachRefusal {
  readonly status: 400 | 503
  readonly text: AnswerKey
  /** With the 503: when to try again. */
  readonly retryAfterSeconds?: number
}

/**
 * Closed mode's "try again" names a minute: a corpus that failed is not
 * asked again for RANGE_FAILURE_PAUSE_MS, and outages seldom end sooner.
 */
const UNCHECKED_RETRY_AFTER_SECONDS = 60

/**
 * What the log says happened, by the range call's failure: an operator offline
 * or behind a firewall reads "could not be reached", not a timeout to tune.
 */
const RANGE_FAILURE_WORDS: Readonly<Record<RangeFailure, string>> = {
  timeout: 'did not answer in time',
  unreachable: 'could not be reached',
  bad_status: 'answered with an error status',
  malformed: 'answered with something that is not a range answer',
  too_large: 'answered with more than a range answer holds'
}

export interface BreachCheckOptions {
  readonly settings: BreachedPasswordSettings
  /** The service's log: a corpus that cannot be asked is a warning there (never with the password, its hash or prefix). */
  readonly log: FastifyBaseLogger
  readonly metrics: Pick<ReferenceMetrics, 'breachedPasswordCheck' | 'breachedPasswordRangeCall'>
  readonly now?: () => number
}

/**
 * The service's policy around the breach corpus (docs/breached-passwords.md):
 * a new password found there is refused; a login's password found there
 * still signs in, flagged. A corpus that cannot be asked in time lets a new
 * password through (BREACHED_PASSWORDS_FAILURE=open, the default: the
 * offline rules have already refused the most common ones, and sign-up
 * should not depend on a third party) or refuses it with "try again"
 * (closed); a login is never refused for it.
 */
export class BreachCheck {
  private readonly range: RangeClient

  constructor (private readonly options: BreachCheckOptions) {
    this.range = new RangeClient({
      rangeUrl: options.settings.rangeUrl,
      timeoutMs: options.settings.timeoutMs,
      onRangeCall: (result) => options.metrics.breachedPasswordRangeCall(result),
      ...(options.now === undefined ? {} : { now: options.now })
    })
  }

  private async ask (password: string, purpose: BreachCheckPurpose): Promise<RangeLookup> {
    const lookup = await this.range.lookup(password).catch((error: unknown): RangeLookup => {
      // A fault of ours, not the corpus's: it fails like an outage does (open or closed), and says so.
      this.options.log.error({ err: error, purpose }, 'the breached-password check failed unexpectedly')
      return { outcome: 'unavailable', reason: 'paused' }
    })
    this.options.metrics.breachedPasswordCheck(purpose, lookup.outcome)
    if (lookup.outcome === 'unavailable' && lookup.reason !== 'paused') {
      // Once per failed range call (paused lookups follow one): the reason, never what was asked.
      this.options.log.warn({ reason: lookup.reason, purpose, failure: this.options.settings.failure },
        `the breached-password corpus ${RANGE_FAILURE_WORDS[lookup.reason]}: ` + (purpose === 'login' || this.options.settings.failure === 'open'
          ? 'the password was let through unchecked'
          : 'a new password was refused with "try again" (BREACHED_PASSWORDS_FAILURE=closed)'))
    }
    return lookup
  }

  /** The refusal of a new password (registration, reset), or null when it may be used. */
  async refusalOfNewPassword (password: string): Promise<BreachRefusal | null> {
    const lookup = await this.ask(password, 'new_password')
    if (lookup.outcome === 'breached') return { status: 400, text: 'field.passwordBreached' }
    if (lookup.outcome === 'unavailable' && this.options.settings.failure === 'closed') return { status: 503, text: 'field.passwordCheckUnavailable', retryAfterSeconds: UNCHECKED_RETRY_AFTER_SECONDS }
    return null
  }

  /** Whether a login's password, already verified, is in the corpus; false when the corpus cannot say. Never throws. */
  async breachedAtLogin (password: string): Promise<boolean> {
    return (await this.ask(password, 'login')).outcome === 'breached'
  }
}
