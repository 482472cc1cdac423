import { randomBytes } from 'node:crypto'
import type { ReferenceMetrics } from '../metrics/metrics.js'
import type { Account } from '../store/account-store.js'
import type { HashGate } from './hash-gate.js'
import { hashPassword, needsRehash, verifyPassword, type ScryptParameters } from './passwords.js'

export interface PasswordWorkOptions {
  /** The bound on concurrent password hashing (hash-gate.ts) that every hash and check goes through. */
  readonly hashGate: HashGate
  /** Times each hash and check. */
  readonly metrics: Pick<ReferenceMetrics, 'timePasswordWork'>
  /** scrypt parameters for new hashes (OWASP's unless PASSWORD_HASH_COST says otherwise). */
  readonly parameters: ScryptParameters
}

/**
 * Every password hash and check the service makes, timed for the metrics and
 * run through the hash gate: refused (PasswordWorkRefused) when the gate is
 * full or the client has gone. One instance serves every flow, so that they
 * share the gate and the decoy hash.
 */
export class PasswordWork {
  /** A real hash of nothing, checked when an email is unknown so that both answers take as long. */
  private readonly decoyHash: Promise<string>

  constructor (private readonly options: PasswordWorkOptions) {
    // Through the gate, which learns from it how long a hash takes here.
    this.decoyHash = options.hashGate.run(() => this.timedHash(randomBytes(16).toString('hex')))
  }

  /** One hash, timed for the metrics (the gate's wait is not in it). */
  private timedHash (password: string): Promise<string> {
    return this.options.metrics.timePasswordWork('hash', () => hashPassword(password, this.options.parameters))
  }

  /** One check, timed for the metrics, without the gate: for the rare check that refusing would strand. */
  verifyUngated (password: string, stored: string): Promise<boolean> {
    return this.options.metrics.timePasswordWork('verify', () => verifyPassword(password, stored))
  }

  /** Hashes through the gate. */
  hash (password: string, signal: AbortSignal): Promise<string> {
    return this.options.hashGate.run(() => this.timedHash(password), signal)
  }

  /** Checks a password through the gate, as hash() does. */
  verify (password: string, stored: string, signal: AbortSignal): Promise<boolean> {
    return this.options.hashGate.run(() => this.verifyUngated(password, stored), signal)
  }

  /** The check an unknown email gets: through the gate as a real one, the same wait and refusals; always false. */
  async verifyDecoy (password: string, signal: AbortSignal): Promise<false> {
    await this.verify(password, await this.decoyHash, signal)
    return false
  }

  /**
   * Whether `password` is the account's, checked through the gate as a login's
   * is (false for an account without one): a proof before a change.
   */
  async checkPassword (account: Account, password: string, signal: AbortSignal): Promise<boolean> {
    return account.passwordHash !== null && await this.verify(password, account.passwordHash, signal)
  }

  /** Whether a stored hash was made with other parameters than today's. */
  needsRehash (stored: string): boolean {
    return needsRehash(stored, this.options.parameters)
  }
}
