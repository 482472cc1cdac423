import { SESSION_ENDED_REASON } from '../../../common/account-changes.js'
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON
} from '@simplewebauthn/server'
import type { PasskeySettings } from '../../shared/passkey-config.js'
import type { SessionTokens } from '../sessions/session-tokens.js'
import type { AfterFirstFactor } from '../sign-in/after-first-factor.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { logAuthEvent } from '../audit/audit.js'
import { describeBrowser } from '../known-browsers/browser-names.js'
import type { ChangeNotices } from '../account-changes/change-notices.js'
import { loginLockDuration, passkeyThrottleKey, waitMessage } from '../sign-in/login-throttles.js'
import type { ReferenceMetrics } from '../metrics/metrics.js'
import {
  challengeBindingHash,
  challengeCookie,
  clearedChallengeCookie,
  newChallengeBinding,
  PASSKEY_CHALLENGE_TTL_MS,
  readChallengeBinding
} from './passkey-challenge-cookie.js'
import { removePasskeyAndItsSessions } from './passkey-removal.js'
import { parseAuthenticationResponse, parseConditional, parseRegistrationResponse } from './passkey-requests.js'
import { isRefusal, type AccountOwners, type OwnerRefusal } from '../account-changes/account-owner.js'
import type { FreshProofs } from '../account-changes/fresh-proofs.js'
import type { Account, AccountStore, PasskeyChallenge, PasskeyChallengePurpose, PasskeyCredential } from '../store/account-store.js'
import { parseLoginContext } from '../http/validation.js'

export const UNKNOWN_CREDENTIAL_REASON = 'unknown_credential'
const NOT_VERIFIED: AnswerKey = 'passkey.notVerified'
const NOT_CREATED: AnswerKey = 'passkey.notCreated'

/** How the registration calls are refused when the caller is not signed in. */
const REGISTER_REFUSAL: OwnerRefusal = { event: 'passkey.register.refused', signedOut: 'passkey.signedOut' }
const REAUTH_REFUSAL: OwnerRefusal = { event: 'reauth.failed', signedOut: 'change.signedOut' }

export interface PasskeysOptions {
  readonly store: AccountStore
  /** Who may change the account (server/reference/account-changes/account-owner.ts). */
  readonly owners: AccountOwners
  readonly proofs: FreshProofs
  /** Ends the sign-in as every flow does. */
  readonly after: AfterFirstFactor
  /** Ends a session a removal raced with. */
  readonly sessionTokens: Pick<SessionTokens, 'revoke'>
  /** Tells the owner of every passkey added or removed. */
  readonly changeNotices: ChangeNotices
  readonly settings: PasskeySettings
  /** The relying party's name the browser shows (PRODUCT_NAME). */
  readonly productName: string
  /** Counts the locks failures set. */
  readonly metrics: Pick<ReferenceMetrics, 'lockout'>
  readonly now: () => number
}

/**
 * Why the WebAuthn library refused a response, for the audit log only: its
 * messages quote challenges and origins, which the log must not hold.
 */
function refusalReason (failure: unknown): string {
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

function displayName (account: Account): string {
  const name = [account.firstName, account.lastName].filter((part) => part !== null && part !== '').join(' ')
  return name === '' ? account.email : name
}

/** An answer that also removes the challenge cookie (its challenge is spent, whatever the outcome). */
function spent (answer: Answer): Answer {
  return { ...answer, cookies: [clearedChallengeCookie(), ...answer.cookies ?? []] }
}

/**
 * The passkey ceremonies of the reference service (docs/passkeys.md):
 * discoverable credentials, user verification required (but for the one
 * conditional registration), challenges single-use and bound to the browser.
 */
export class Passkeys {
  constructor (private readonly options: PasskeysOptions) {}

  private get store (): AccountStore { return this.options.store }

  private async issueChallenge (purpose: PasskeyChallengePurpose, accountId: string | null, challenge: string): Promise<string> {
    const binding = newChallengeBinding()
    await this.store.insertPasskeyChallenge({
      bindingHash: challengeBindingHash(binding),
      purpose,
      accountId,
      challenge,
      expiresAt: this.options.now() + PASSKEY_CHALLENGE_TTL_MS
    })
    return challengeCookie(binding)
  }

  /** Takes the browser's challenge out of the store (single use): null when it has none, or an expired one. */
  private async takeChallenge (facts: RequestFacts): Promise<PasskeyChallenge | null> {
    const binding = readChallengeBinding(facts.browser?.cookieHeader)
    return binding === null ? null : await this.store.takePasskeyChallenge(challengeBindingHash(binding), this.options.now())
  }

  /** `passkeys/login/options`: a challenge for any of the visitor's passkeys (none is named: they are discoverable). */
  async loginOptions (facts: RequestFacts): Promise<Answer> {
    const options = await generateAuthenticationOptions({
      rpID: this.options.settings.rpId,
      allowCredentials: [],
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS
    })
    const cookie = await this.issueChallenge('login', null, options.challenge)
    return { status: 200, body: { options }, cookies: [cookie] }
  }

  /**
   * `passkeys/login`: checks the assertion and signs in as every login does.
   * Failures count against the client's address range (server/reference/sign-in/login-throttles.ts),
   * so that guessing credential ids is not free.
   */
  async login (body: unknown, facts: RequestFacts): Promise<Answer> {
    const throttleKey = passkeyThrottleKey(facts.clientAddress)
    const throttle = await this.store.readLoginThrottle(throttleKey)
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
    const challenge = await this.takeChallenge(facts)
    if (challenge === null || challenge.purpose !== 'login') {
      logAuthEvent(facts, 'passkey.login.failed', { clientAddress: facts.clientAddress, reason: 'no-challenge' })
      return spent(error(400, say(facts, 'passkey.noChallenge')))
    }
    const failed = async (status: number, message: AnswerKey, reason: string, details: Record<string, unknown> = {}): Promise<Answer> => {
      const failure = await this.store.recordLoginFailure(throttleKey, loginLockDuration, this.options.now())
      if (loginLockDuration(failure.failures) > 0) this.options.metrics.lockout('passkey')
      logAuthEvent(facts, 'passkey.login.failed', { clientAddress: facts.clientAddress, reason, failures: failure.failures, ...details })
      return spent(error(status, say(facts, message), status === 401 && reason === 'unknown-credential'
        ? { reason: UNKNOWN_CREDENTIAL_REASON, credential_id: response.id }
        : {}))
    }

    const credential = await this.store.findPasskey(response.id)
    const account = credential === null ? null : await this.store.findAccountById(credential.accountId)
    if (credential === null || account === null) return failed(401, 'passkey.unknown', 'unknown-credential')
    if (response.response.userHandle !== await this.store.passkeyUserHandle(account.id)) {
      return failed(401, NOT_VERIFIED, 'user-handle', { accountId: account.id })
    }
    const checked = await this.verifyAssertion(response, challenge, credential)
    if (checked !== 'verified') return failed(401, NOT_VERIFIED, checked, { accountId: account.id })

    await this.store.clearLoginFailures(throttleKey)
    const unverified = this.options.after.refusalIfUnverified(account, facts)
    if (unverified !== null) return spent(unverified)
    // The session keeps the passkey's id: removing the passkey ends it (passkey-removal.ts).
    const answer = await this.options.after.completeLogin(account, { ...context.value, passkeyId: credential.id }, 'hwk', facts)
    if (answer.status !== 200) return spent(answer)
    // A removal that ran while this sign-in was checked may have ended the passkey's sessions before this one was stored.
    if (await this.store.findPasskey(credential.id) === null) {
      await this.options.sessionTokens.revoke(answer.body.refresh, facts)
      return failed(401, 'passkey.unknown', 'unknown-credential')
    }
    const passkeys = await this.store.listPasskeys(account.id)
    return spent(await this.options.after.withBrowserCookie(account, {
      ...answer,
      status: 200,
      body: {
        ...answer.body,
        email: account.email,
        name: displayName(account),
        user_id: await this.store.passkeyUserHandle(account.id),
        credential_ids: passkeys.map((passkey) => passkey.id)
      }
    }, facts))
  }

  /**
   * Checks an assertion against its challenge and the stored credential, with
   * user verification, and records the use: 'verified', or why not (for the log).
   */
  private async verifyAssertion (response: AuthenticationResponseJSON, challenge: PasskeyChallenge, credential: PasskeyCredential): Promise<'verified' | string> {
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
    const recorded = await this.store.recordPasskeyUse(credential.id, {
      counter: info.newCounter, backedUp: info.credentialBackedUp, deviceType: info.credentialDeviceType, now: this.options.now()
    })
    return recorded ? 'verified' : 'counter'
  }

  /**
   * `passkeys/reauthenticate/options`: a challenge for one of the signed-in
   * account's own passkeys, to prove the account again before a change.
   */
  async reauthenticateOptions (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', REAUTH_REFUSAL)
    if (isRefusal(owner)) return owner
    const passkeys = await this.store.listPasskeys(owner.account.id)
    if (passkeys.length === 0) return error(400, say(facts, 'reauth.noPasskey'))
    const options = await generateAuthenticationOptions({
      rpID: this.options.settings.rpId,
      allowCredentials: passkeys.map((passkey) => ({ id: passkey.id, transports: [...passkey.transports] as never })),
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS
    })
    const cookie = await this.issueChallenge('reauthenticate', owner.account.id, options.challenge)
    return { status: 200, body: { options }, cookies: [cookie] }
  }

  /** `passkeys/reauthenticate`: the assertion of one of the account's passkeys, with user verification: a fresh proof. */
  async reauthenticate (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', REAUTH_REFUSAL)
    if (isRefusal(owner)) return owner
    const { account } = owner
    const parsed = parseAuthenticationResponse(body)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const challenge = await this.takeChallenge(facts)
    if (challenge === null || challenge.purpose !== 'reauthenticate' || challenge.accountId !== account.id) {
      logAuthEvent(facts, 'reauth.failed', { accountId: account.id, clientAddress: facts.clientAddress, via: 'passkey', reason: 'no-challenge' })
      return spent(error(400, say(facts, 'passkey.noChallenge')))
    }
    const credential = await this.store.findPasskey(parsed.value.id)
    const checked = credential?.accountId !== account.id
      ? 'not-this-account'
      : parsed.value.response.userHandle !== await this.store.passkeyUserHandle(account.id)
        ? 'user-handle'
        : await this.verifyAssertion(parsed.value, challenge, credential)
    if (checked !== 'verified') {
      logAuthEvent(facts, 'reauth.failed', { accountId: account.id, clientAddress: facts.clientAddress, via: 'passkey', reason: checked })
      return spent(error(401, say(facts, NOT_VERIFIED)))
    }
    const cookie = await this.options.proofs.record({ accountId: account.id, sessionId: owner.claims.sessionId }, 'hwk', facts, { atSignIn: false })
    logAuthEvent(facts, 'reauth.succeeded', { accountId: account.id, clientAddress: facts.clientAddress, via: 'passkey' })
    return spent({ ...successAnswer(say(facts, 'reauth.done')), cookies: cookie === null ? [] : [cookie] })
  }

  /** `passkeys/remove`: removes one of the account's passkeys, with a fresh proof, and ends the sessions it started. */
  async remove (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'passkey.remove.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const id = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).id : undefined
    if (typeof id !== 'string' || !/^[\w-]{1,1366}$/.test(id)) return error(400, say(facts, 'passkey.idInvalid'))
    // Read first: the email names it.
    const passkey = await this.store.findPasskey(id)
    const sessionsEnded = passkey?.accountId === account.id ? await removePasskeyAndItsSessions(this.store, account.id, id, this.options.now()) : null
    if (passkey?.accountId !== account.id || sessionsEnded === null) {
      logAuthEvent(facts, 'passkey.remove.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'unknown' })
      return error(404, say(facts, 'passkey.notFound'))
    }
    logAuthEvent(facts, 'passkey.removed', { accountId: account.id, clientAddress: facts.clientAddress, sessionsEnded })
    this.options.changeNotices.tellOwner(account, { kind: 'passkey-removed', passkeyName: passkey.name ?? describeBrowser(undefined) }, facts)
    return successAnswer(say(facts, 'passkey.removed'))
  }

  /**
   * `passkeys/register/options`, for a signed-in account: `conditional`
   * asks for the registration the browser makes without a prompt right
   * after a password sign-in, the one ceremony that may lack user presence.
   */
  async registerOptions (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const conditional = parseConditional(body)
    if (!conditional.ok) return error(400, say(facts, conditional.error))
    // A prompt-less registration rides on this browser's sign-in (once); any other needs a fresh proof.
    const owner = await this.options.owners.check(authToken, facts, conditional.value ? 'upgrade' : 'proof', REGISTER_REFUSAL)
    if (isRefusal(owner)) return owner
    const { account } = owner
    const userHandle = (await this.store.passkeyUserHandle(account.id))!
    const existing = await this.store.listPasskeys(account.id)
    const options = await generateRegistrationOptions({
      rpName: this.options.productName,
      rpID: this.options.settings.rpId,
      userName: account.email,
      userDisplayName: displayName(account),
      userID: Buffer.from(userHandle, 'base64url'),
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({ id: passkey.id, transports: [...passkey.transports] as never })),
      authenticatorSelection: {
        residentKey: 'required',
        requireResidentKey: true,
        // A conditional create happens without a prompt: the browser cannot verify the user then.
        userVerification: conditional.value ? 'preferred' : 'required'
      },
      timeout: PASSKEY_CHALLENGE_TTL_MS
    })
    const cookie = await this.issueChallenge(conditional.value ? 'register-conditional' : 'register', account.id, options.challenge)
    return { status: 200, body: { options }, cookies: [cookie] }
  }

  /** `passkeys/register`: stores the new passkey of the signed-in account. */
  async register (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    // The proof was asked for with the options, whose challenge is this browser's and this account's.
    const owner = await this.options.owners.check(authToken, facts, 'session', REGISTER_REFUSAL)
    if (isRefusal(owner)) return owner
    const { account } = owner
    const refused = (status: number, message: AnswerKey, reason: string): Answer => {
      logAuthEvent(facts, 'passkey.register.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason })
      return spent(error(status, say(facts, message)))
    }
    const sessionEnded = (): Answer => {
      logAuthEvent(facts, 'passkey.register.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'session-ended' })
      return spent(error(401, say(facts, 'change.sessionEnded'), { reason: SESSION_ENDED_REASON }))
    }
    const parsed = parseRegistrationResponse(body)
    if (!parsed.ok) {
      // Before the challenge is taken: it stays, and so does its cookie.
      logAuthEvent(facts, 'passkey.register.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'malformed' })
      return error(400, say(facts, parsed.error))
    }
    const challenge = await this.takeChallenge(facts)
    if (challenge === null || !challenge.purpose.startsWith('register') || challenge.accountId !== account.id) {
      return refused(400, 'passkey.noChallenge', 'no-challenge')
    }
    // The specification's one exception: a conditional create may come without user presence or verification.
    const conditional = challenge.purpose === 'register-conditional'
    let verification
    try {
      verification = await verifyRegistrationResponse({
        response: parsed.value,
        expectedChallenge: challenge.challenge,
        expectedOrigin: [...this.options.settings.origins],
        expectedRPID: this.options.settings.rpId,
        requireUserPresence: !conditional,
        requireUserVerification: !conditional
      })
    } catch (failure) {
      return refused(400, NOT_CREATED, refusalReason(failure))
    }
    if (!verification.verified) return refused(400, NOT_CREATED, 'invalid')
    const info = verification.registrationInfo
    if (info.credential.id !== parsed.value.id) return refused(400, NOT_CREATED, 'id-mismatch')
    // One prompt-less registration per sign-in: a second, or one from another browser, is refused.
    if (conditional && !await this.options.proofs.spendOnUpgrade(owner.claims.sessionId, facts)) return refused(403, 'change.proofRequired', 'upgrade-spent')
    const now = this.options.now()
    const name = describeBrowser(facts.browser?.userAgent)
    const stored = await this.store.insertPasskey({
      id: info.credential.id,
      accountId: account.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: parsed.value.response.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      name,
      createdAt: now,
      lastUsedAt: null
    }, { familyId: owner.claims.sessionId, now: this.options.now() })
    if (!stored) {
      // Not kept either when the session ended while the browser made the credential (a claim, a reset).
      return await this.store.isRefreshFamilyLive(owner.claims.sessionId, this.options.now())
        ? refused(409, 'passkey.exists', 'exists')
        : sessionEnded()
    }
    logAuthEvent(facts, 'passkey.register.succeeded', {
      accountId: account.id, clientAddress: facts.clientAddress, conditional, backedUp: info.credentialBackedUp
    })
    // The prompt-less one too: the owner hears of every passkey, and its link removes this one.
    this.options.changeNotices.tellOwner(account, { kind: 'passkey-added', passkeyName: name }, facts, { kind: 'passkey', id: info.credential.id })
    return spent(successAnswer(say(facts, 'passkey.created')))
  }
}
