import { generateAuthenticationOptions } from '@simplewebauthn/server'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { parseLoginContext } from '../http/validation.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { loginLockDuration, passkeyThrottleKey, waitMessage } from '../sign-in/login-throttles.js'
import { displayName, spent, type PasskeyCeremony } from './passkey-ceremony.js'
import { PASSKEY_CHALLENGE_TTL_MS } from './passkey-challenge-cookie.js'
import { parseAuthenticationResponse } from './passkey-requests.js'
import type { PasskeysOptions } from './passkeys.js'

const UNKNOWN_CREDENTIAL_REASON = 'unknown_credential'
export const NOT_VERIFIED: AnswerKey = 'passkey.notVerified'

export interface PasskeySignInOptions extends Pick<PasskeysOptions, 'store' | 'after' | 'sessionTokens' | 'metrics' | 'now'> {
  readonly ceremony: PasskeyCeremony
}

/** Signing in with a passkey: discoverable credentials, user verification required. */
export class PasskeySignIn {
  constructor (private readonly options: PasskeySignInOptions) {}

  /** `passkeys/login/options`: a challenge for any of the visitor's passkeys (none is named: they are discoverable). */
  async loginOptions (): Promise<Answer> {
    const options = await generateAuthenticationOptions({
      rpID: this.options.ceremony.settings.rpId,
      allowCredentials: [],
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS
    })
    const cookie = await this.options.ceremony.issueChallenge('login', null, options.challenge)
    return { status: 200, body: { options }, cookies: [cookie] }
  }

  /**
   * `passkeys/login`: checks the assertion and signs in as every login does.
   * Failures count against the client's address range (server/reference/sign-in/login-throttles.ts),
   * so that guessing credential ids is not free.
   */
  async login (body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, ceremony, after } = this.options
    const throttleKey = passkeyThrottleKey(facts.clientAddress)
    const throttle = await store.readLoginThrottle(throttleKey)
    if (throttle.lockedUntil > this.options.now()) {
      logAuthEvent(facts, 'passkey.login.throttled', { clientAddress: facts.clientAddress })
      return error(429, say(facts, waitMessage(throttle.lockedUntil, this.options.now())))
    }
    const context = parseLoginContext(body)
    if (!context.ok) return error(400, say(facts, context.error))
    const parsed = parseAuthenticationResponse(body)
    if (!parsed.ok) {
      logAuthEvent(facts, 'passkey.login.failed', { clientAddress: facts.clientAddress, reason: 'malformed' })
      return error(400, say(facts, parsed.error))
    }
    const response = parsed.value
    // Taken before anything else is checked: a response is worth one try.
    const challenge = await ceremony.takeChallenge(facts)
    if (challenge === null || challenge.purpose !== 'login') {
      logAuthEvent(facts, 'passkey.login.failed', { clientAddress: facts.clientAddress, reason: 'no-challenge' })
      return spent(error(400, say(facts, 'passkey.noChallenge')))
    }
    const failed = async (status: number, message: AnswerKey, reason: string, details: Record<string, unknown> = {}): Promise<Answer> => {
      const failure = await store.recordLoginFailure(throttleKey, loginLockDuration, this.options.now())
      if (loginLockDuration(failure.failures) > 0) this.options.metrics.lockout('passkey')
      logAuthEvent(facts, 'passkey.login.failed', { clientAddress: facts.clientAddress, reason, failures: failure.failures, ...details })
      return spent(error(status, say(facts, message), status === 401 && reason === 'unknown-credential'
        ? { reason: UNKNOWN_CREDENTIAL_REASON, credential_id: response.id }
        : {}))
    }

    const credential = await store.findPasskey(response.id)
    const account = credential === null ? null : await store.findAccountById(credential.accountId)
    if (credential === null || account === null) return failed(401, 'passkey.unknown', 'unknown-credential')
    if (response.response.userHandle !== await store.passkeyUserHandle(account.id)) {
      return failed(401, NOT_VERIFIED, 'user-handle', { accountId: account.id })
    }
    const checked = await ceremony.verifyAssertion(response, challenge, credential)
    if (checked !== 'verified') return failed(401, NOT_VERIFIED, checked, { accountId: account.id })

    await store.clearLoginFailures(throttleKey)
    const unverified = after.refusalIfUnverified(account, facts)
    if (unverified !== null) return spent(unverified)
    // The session keeps the passkey's id: removing the passkey ends it (passkey-removal.ts).
    const answer = await after.completeLogin(account, { ...context.value, passkeyId: credential.id }, 'hwk', facts)
    if (answer.status !== 200) return spent(answer)
    // A removal that ran while this sign-in was checked may have ended the passkey's sessions before this one was stored.
    if (await store.findPasskey(credential.id) === null) {
      await this.options.sessionTokens.revoke(answer.body.refresh, facts)
      return failed(401, 'passkey.unknown', 'unknown-credential')
    }
    const passkeys = await store.listPasskeys(account.id)
    return spent(await after.withBrowserCookie(account, {
      ...answer,
      status: 200,
      body: {
        ...answer.body,
        email: account.email,
        name: displayName(account),
        user_id: await store.passkeyUserHandle(account.id),
        credential_ids: passkeys.map((passkey) => passkey.id)
      }
    }, facts))
  }
}
