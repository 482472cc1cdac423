import { SESSION_ENDED_REASON } from '../../../common/account-changes/account-changes.js'
import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server'
import { COSEALG } from '@simplewebauthn/server/helpers'
import { isRefusal, type OwnerRefusal } from '../account-changes/account-owner.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { describeBrowser } from '../known-browsers/browser-names.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { displayName, refusalReason, spent, type PasskeyCeremony } from './passkey-ceremony.js'
import { PASSKEY_CHALLENGE_TTL_MS } from './passkey-challenge-cookie.js'
import { parseConditional, parseRegistrationResponse } from './passkey-requests.js'
import type { PasskeysOptions } from './passkeys.js'

const NOT_CREATED: AnswerKey = 'passkey.notCreated'
/** How the registration calls are refused when the caller is not signed in. */
const REGISTER_REFUSAL: OwnerRefusal = { event: 'passkey.register.refused', signedOut: 'passkey.signedOut' }
/**
 * The key algorithms a new passkey may use, named rather than left to the
 * library: its default asks Node's Web Crypto `supports` whether ML-DSA-44
 * is there, and on Node 24 both are experimental. That check prints two
 * plain-text warnings among the JSON log lines, and a passkey made with
 * ML-DSA-44 would be verified at every sign-in by an API that may change
 * with any Node release. The authenticators in use make ES256, EdDSA or RS256 keys.
 */
const PASSKEY_ALGORITHMS = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256]

export interface PasskeyRegistrationOptions extends Pick<PasskeysOptions,
  'store' | 'owners' | 'proofs' | 'changeNotices' | 'productName' | 'now'
> {
  readonly ceremony: PasskeyCeremony
}

/**
 * Adding a passkey to the signed-in account: with a fresh proof and user
 * verification, but for the one conditional registration the browser makes
 * without a prompt right after a password sign-in.
 */
export class PasskeyRegistration {
  constructor (private readonly options: PasskeyRegistrationOptions) {}

  /**
   * `passkeys/register/options`, for a signed-in account: `conditional`
   * asks for the registration the browser makes without a prompt right
   * after a password sign-in, the one ceremony that may lack user presence.
   */
  async registerOptions (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, ceremony } = this.options
    const conditional = parseConditional(body)
    if (!conditional.ok) return error(400, say(facts, conditional.error))
    // A prompt-less registration rides on this browser's sign-in (once); any other needs a fresh proof.
    const owner = await this.options.owners.check(authToken, facts, conditional.value ? 'upgrade' : 'proof', REGISTER_REFUSAL)
    if (isRefusal(owner)) return owner
    const { account } = owner
    const userHandle = (await store.passkeyUserHandle(account.id))!
    const existing = await store.listPasskeys(account.id)
    const options = await generateRegistrationOptions({
      rpName: this.options.productName,
      rpID: ceremony.settings.rpId,
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
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS
    })
    const cookie = await ceremony.issueChallenge(conditional.value ? 'register-conditional' : 'register', account.id, options.challenge)
    return { status: 200, body: { options }, cookies: [cookie] }
  }

  /** `passkeys/register`: stores the new passkey of the signed-in account. */
  async register (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, ceremony } = this.options
    // The proof was asked for with the options, whose challenge is this browser's and this account's.
    const owner = await this.options.owners.check(authToken, facts, 'session', REGISTER_REFUSAL)
    if (isRefusal(owner)) return owner
    const { account } = owner
    const refused = (status: number, message: AnswerKey, reason: string): Answer => {
      logAuthEvent(facts, 'passkey.register.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason })
      return spent(error(status, say(facts, message)))
    }
    const parsed = parseRegistrationResponse(body)
    if (!parsed.ok) {
      // Before the challenge is taken: it stays, and so does its cookie.
      logAuthEvent(facts, 'passkey.register.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'malformed' })
      return error(400, say(facts, parsed.error))
    }
    const challenge = await ceremony.takeChallenge(facts)
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
        expectedOrigin: [...ceremony.settings.origins],
        expectedRPID: ceremony.settings.rpId,
        requireUserPresence: !conditional,
        requireUserVerification: !conditional,
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS
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
    const stored = await store.insertPasskey({
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
      if (await store.isRefreshFamilyLive(owner.claims.sessionId, this.options.now())) return refused(409, 'passkey.exists', 'exists')
      // Not kept either when the session ended while the browser made the credential (a claim, a reset).
      logAuthEvent(facts, 'passkey.register.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'session-ended' })
      return spent(error(401, say(facts, 'change.sessionEnded'), { reason: SESSION_ENDED_REASON }))
    }
    logAuthEvent(facts, 'passkey.register.succeeded', {
      accountId: account.id, clientAddress: facts.clientAddress, conditional, backedUp: info.credentialBackedUp
    })
    // The prompt-less one too: the owner hears of every passkey, and its link removes this one.
    this.options.changeNotices.tellOwner(account, { kind: 'passkey-added', passkeyName: name }, facts, { kind: 'passkey', id: info.credential.id })
    return spent(successAnswer(say(facts, 'passkey.created')))
  }
}
