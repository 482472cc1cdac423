import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'
import { RANGE_FAILURES, type RangeFailure } from '../breached-passwords/range-client.js'

/**
 * The reference service's own figures (docs/operations.md, "The reference
 * service's metrics"), in a registry of this process: the edge reads them
 * over loopback (metrics-route.ts) and serves them after its own on
 * METRICS_PORT. Every label value is one of the closed sets below: never an
 * address, an id or a token.
 */

/** Names start with this, so that they never collide with the edge's (its process figures keep the standard names). */
const REFERENCE_METRICS_PREFIX = 'threshold_reference_'

/** scrypt at OWASP's cost takes a few hundred milliseconds; test and development costs take a few. */
const PASSWORD_WORK_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export type PasswordOperation = 'hash' | 'verify'

/**
 * What locked or slowed attempts: `address` a pair (account and address
 * range, or account and known browser) locked, `account_slowdown` the
 * account-wide slow-down started, `passkey` an address range's passkey
 * sign-ins locked, `second_factor` an account's code step locked.
 */
export type LockoutScope = 'address' | 'account_slowdown' | 'passkey' | 'second_factor'
const LOCKOUT_SCOPES: readonly LockoutScope[] = ['address', 'account_slowdown', 'passkey', 'second_factor']

/** `account_change`: the owner told of a change to how the account signs in (server/reference/account-changes/change-notices.ts). */
export type EmailKind = 'verify_email' | 'password_reset' | 'new_browser' | 'registration_attempt' | 'account_claimed' | 'breached_password' | 'account_change' | 'email_code' | 'other'
const EMAIL_KINDS: readonly EmailKind[] = [
  'verify_email', 'password_reset', 'new_browser', 'registration_attempt', 'account_claimed', 'breached_password', 'account_change', 'email_code', 'other'
]
export type EmailOutcome = 'sent' | 'failed'

/**
 * The edge's sign-in methods as this service can tell them apart: a passkey
 * sign-in does not say whether the browser offered it by autofill or the
 * visitor pressed the button, so the service counts both as `passkey` (the
 * edge's own counter has the split).
 */
export type SignInMethod = 'password' | 'google' | 'sso' | 'social' | 'passkey' | 'email_code' | 'second_factor' | 'recovery_code'
const SIGN_IN_METHODS: readonly SignInMethod[] = ['password', 'google', 'sso', 'social', 'passkey', 'email_code', 'second_factor', 'recovery_code']
/** `success` tokens issued, `second_factor_required` a challenge instead, `refused` a 4xx, `error` a 5xx or a failure. */
export type SignInOutcome = 'success' | 'second_factor_required' | 'refused' | 'error'
const SIGN_IN_OUTCOMES: readonly SignInOutcome[] = ['success', 'second_factor_required', 'refused', 'error']

/** Where a password was checked against the breach corpus: a new one (registration, reset) or a login's. */
export type BreachCheckPurpose = 'new_password' | 'login'
const BREACH_CHECK_PURPOSES: readonly BreachCheckPurpose[] = ['new_password', 'login']
/** What the check concluded; `unavailable`: the corpus could not be asked in time (or is paused after a failure). */
export type BreachCheckOutcome = 'breached' | 'clean' | 'unavailable'
const BREACH_CHECK_OUTCOMES: readonly BreachCheckOutcome[] = ['breached', 'clean', 'unavailable']

/** What a sign-in's outcome is read from. */
export interface SignInAnswer { readonly status: number, readonly body: Readonly<Record<string, unknown>> }

/** The outcome of a sign-in answer, from its status and body. */
function signInOutcome (answer: SignInAnswer): SignInOutcome {
  if (answer.status >= 500) return 'error'
  if (answer.status >= 400) return 'refused'
  return typeof answer.body.second_factor === 'string' ? 'second_factor_required' : 'success'
}

export class ReferenceMetrics {
  /** This process's registry; its text is what the edge fetches. */
  readonly registry = new Registry()
  private readonly passwordWork: Histogram<'operation'>
  private readonly gateRefusals: Counter
  private readonly lockouts: Counter<'scope'>
  private readonly emails: Counter<'kind' | 'outcome'>
  private readonly signIns: Counter<'method' | 'outcome'>
  private readonly breachChecks: Counter<'purpose' | 'outcome'>
  private readonly rangeCalls: Counter<'result'>

  /**
   * `processFigures`: also the process's own (CPU, memory, event loop lag),
   * prefixed. Off where nobody reads them (the test suites build many
   * services in one process, and each collection keeps its own observers).
   */
  constructor ({ processFigures }: { readonly processFigures: boolean }) {
    const registers = [this.registry]
    this.passwordWork = new Histogram({
      name: `${REFERENCE_METRICS_PREFIX}password_hash_duration_seconds`,
      help: 'Time of one password hash or check (scrypt), without the wait for its turn at the hash gate.',
      labelNames: ['operation'],
      buckets: PASSWORD_WORK_BUCKETS_SECONDS,
      registers
    })
    this.gateRefusals = new Counter({
      name: `${REFERENCE_METRICS_PREFIX}hash_gate_refusals_total`,
      help: 'Password checks refused because the hash gate was full (answered 503 with Retry-After: load shedding).',
      registers
    })
    this.lockouts = new Counter({
      name: `${REFERENCE_METRICS_PREFIX}lockouts_total`,
      help: 'Locks set by failed attempts (scope address, passkey, second_factor) and account-wide slow-downs started (account_slowdown).',
      labelNames: ['scope'],
      registers
    })
    this.emails = new Counter({
      name: `${REFERENCE_METRICS_PREFIX}emails_total`,
      help: 'Emails handed to SMTP or written to the outbox (sent), or that could not be (failed), by kind.',
      labelNames: ['kind', 'outcome'],
      registers
    })
    this.signIns = new Counter({
      name: `${REFERENCE_METRICS_PREFIX}sign_ins_total`,
      help: 'Sign-in calls answered by the reference service, by method and outcome.',
      labelNames: ['method', 'outcome'],
      registers
    })
    this.breachChecks = new Counter({
      name: `${REFERENCE_METRICS_PREFIX}breached_password_checks_total`,
      help: 'Passwords checked against the breach corpus, by purpose (new_password, login) and outcome (breached, clean, unavailable: let through or, in closed mode, a new one refused).',
      labelNames: ['purpose', 'outcome'],
      registers
    })
    this.rangeCalls = new Counter({
      name: `${REFERENCE_METRICS_PREFIX}breached_password_range_calls_total`,
      help: 'Calls made to the breached-password range API (cache hits and shared lookups make none), by result: ok or why it failed.',
      labelNames: ['result'],
      registers
    })
    // Every series exists from the start at 0, so that rate() and the alert rules see a change from nothing to one.
    for (const operation of ['hash', 'verify'] as const) this.passwordWork.zero({ operation })
    for (const scope of LOCKOUT_SCOPES) this.lockouts.inc({ scope }, 0)
    for (const kind of EMAIL_KINDS) for (const outcome of ['sent', 'failed'] as const) this.emails.inc({ kind, outcome }, 0)
    for (const method of SIGN_IN_METHODS) for (const outcome of SIGN_IN_OUTCOMES) this.signIns.inc({ method, outcome }, 0)
    for (const purpose of BREACH_CHECK_PURPOSES) for (const outcome of BREACH_CHECK_OUTCOMES) this.breachChecks.inc({ purpose, outcome }, 0)
    for (const result of ['ok', ...RANGE_FAILURES] as const) this.rangeCalls.inc({ result }, 0)
    if (processFigures) collectDefaultMetrics({ register: this.registry, prefix: REFERENCE_METRICS_PREFIX })
  }

  /** Runs one hash or check and records how long it took (failed ones too: they cost the same). */
  async timePasswordWork<T> (operation: PasswordOperation, work: () => Promise<T>): Promise<T> {
    const stop = this.passwordWork.startTimer({ operation })
    try {
      return await work()
    } finally {
      stop()
    }
  }

  gateRefused (): void { this.gateRefusals.inc() }

  lockout (scope: LockoutScope): void { this.lockouts.inc({ scope }) }

  email (kind: EmailKind, outcome: EmailOutcome): void { this.emails.inc({ kind, outcome }) }

  signIn (method: SignInMethod, outcome: SignInOutcome): void { this.signIns.inc({ method, outcome }) }

  breachedPasswordCheck (purpose: BreachCheckPurpose, outcome: BreachCheckOutcome): void { this.breachChecks.inc({ purpose, outcome }) }

  breachedPasswordRangeCall (result: 'ok' | RangeFailure): void { this.rangeCalls.inc({ result }) }

  /**
   * Counts a sign-in call by the answer it gives (`answerOf` null: not a
   * sign-in's answer, such as an SSO redirect, not counted). A call that
   * throws is answered 5xx by the error handler (the hash gate's 503 among
   * them): an error.
   */
  async countSignIn<T> (method: SignInMethod, answering: Promise<T>, answerOf: (reply: T) => SignInAnswer | null): Promise<T> {
    try {
      const reply = await answering
      const answer = answerOf(reply)
      if (answer !== null) this.signIn(method, signInOutcome(answer))
      return reply
    } catch (failure) {
      this.signIn(method, 'error')
      throw failure
    }
  }

  /** The Prometheus text exposition of every figure. */
  async text (): Promise<string> {
    return await this.registry.metrics()
  }

  get contentType (): string {
    return this.registry.contentType
  }
}
