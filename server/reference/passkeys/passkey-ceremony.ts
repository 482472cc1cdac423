import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server'
import type { PasskeySettings } from '../../shared/passkeys/passkey-config.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import type { Account, PasskeyChallenge, PasskeyChallengePurpose, PasskeyCredential } from '../store/account-store.js'
import {
  challengeBindingHash,
  challengeCookie,
  clearedChallengeCookie,
  newChallengeBinding,
  PASSKEY_CHALLENGE_TTL_MS,
  readChallengeBinding
} from './passkey-challenge-cookie.js'
import type { PasskeysOptions } from './passkeys.js'

export type PasskeyCeremonyOptions = Pick<PasskeysOptions, 'store' | 'settings' | 'now'>

/**
 * Why the WebAuthn library refused a response, for the audit log only: its
 * messages quote challenges and origins, which the log must not hold.
 */
export function refusalReason (failure: unknown): string {
  const name = failure instanceof Error ? failure.name : ''
  const message = failure instanceof Error ? failure.message : ''
  if (name === 'UnexpectedRPIDHash') return 'rp-id'
  if (/challenge/i.test(message)) return 'challenge'
  if (/origin/i.test(message)) return 'origin'
  if (/user verification/i.test(message)) return 'user-verification'
  if (/user presence|not present/i.test(message)) return 'user-presence'
  if (/counter/i.test(message)) return 'counter'
  if (/type/i.test(message)) return 'type'
  return 'invalid'
}

/** The name a passkey's owner is shown by: her name, else her address. */
export function displayName (account: Account): string {
  const name = [account.firstName, account.lastName].filter((part) => part !== null && part !== '').join(' ')
  return name === '' ? account.email : name
}

/** An answer that also removes the challenge cookie (its challenge is spent, whatever the outcome). */
export function spent (answer: Answer): Answer {
  return { ...answer, cookies: [clearedChallengeCookie(), ...answer.cookies ?? []] }
}

/**
 * What every passkey ceremony shares (docs/passkeys.md): challenges
 * single-use and bound to the browser that asked for them, and the check
 * of an assertion against a stored credential.
 */
export class PasskeyCeremony {
  constructor (private readonly options: PasskeyCeremonyOptions) {}

  get settings (): PasskeySettings { return this.options.settings }

  /** Stores a challenge for `purpose`: the Set-Cookie value that binds it to this browser. */
  async issueChallenge (purpose: PasskeyChallengePurpose, accountId: string | null, challenge: string): Promise<string> {
    const binding = newChallengeBinding()
    await this.options.store.insertPasskeyChallenge({
      bindingHash: challengeBindingHash(binding),
      purpose,
      accountId,
      challenge,
      expiresAt: this.options.now() + PASSKEY_CHALLENGE_TTL_MS
    })
    return challengeCookie(binding)
  }

  /** Takes the browser's challenge out of the store (single use): null when it has none, or an expired one. */
  async takeChallenge (facts: RequestFacts): Promise<PasskeyChallenge | null> {
    const binding = readChallengeBinding(facts.browser?.cookieHeader)
    return binding === null ? null : await this.options.store.takePasskeyChallenge(challengeBindingHash(binding), this.options.now())
  }

  /**
   * Checks an assertion against its challenge and the stored credential, with
   * user verification, and records the use: 'verified', or why not (for the log).
   */
  async verifyAssertion (response: AuthenticationResponseJSON, challenge: PasskeyChallenge, credential: PasskeyCredential): Promise<string> {
    let verification
    try {
      verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge.challenge,
        expectedOrigin: [...this.options.settings.origins],
        expectedRPID: this.options.settings.rpId,
        credential: {
          id: credential.id,
          publicKey: Buffer.from(credential.publicKey, 'base64url'),
          counter: credential.counter,
          transports: [...credential.transports] as never
        },
        requireUserVerification: true
      })
    } catch (failure) {
      return refusalReason(failure)
    }
    if (!verification.verified) return 'signature'
    const info = verification.authenticationInfo
    // Atomic with the counter's check: of two sign-ins with one counter value, one is recorded.
    const recorded = await this.options.store.recordPasskeyUse(credential.id, {
      counter: info.newCounter, backedUp: info.credentialBackedUp, deviceType: info.credentialDeviceType, now: this.options.now()
    })
    return recorded ? 'verified' : 'counter'
  }
}
