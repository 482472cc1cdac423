import { generateAuthenticationOptions } from '@simplewebauthn/server'
import { isRefusal, type OwnerRefusal } from '../account-changes/account-owner.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { spent, type PasskeyCeremony } from './passkey-ceremony.js'
import { PASSKEY_CHALLENGE_TTL_MS } from './passkey-challenge-cookie.js'
import { parseAuthenticationResponse } from './passkey-requests.js'
import { NOT_VERIFIED } from './passkey-sign-in.js'
import type { PasskeysOptions } from './passkeys.js'

const REAUTH_REFUSAL: OwnerRefusal = { event: 'reauth.failed', signedOut: 'change.signedOut' }

export interface PasskeyReauthenticationOptions extends Pick<PasskeysOptions, 'store' | 'owners' | 'proofs'> {
  readonly ceremony: PasskeyCeremony
}

/** Proving the signed-in account again with one of its own passkeys, before a change (docs/account-changes.md). */
export class PasskeyReauthentication {
  constructor (private readonly options: PasskeyReauthenticationOptions) {}

  /** `passkeys/reauthenticate/options`: a challenge for one of the signed-in account's own passkeys. */
  async reauthenticateOptions (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', REAUTH_REFUSAL)
    if (isRefusal(owner)) return owner
    const passkeys = await this.options.store.listPasskeys(owner.account.id)
    if (passkeys.length === 0) return error(400, say(facts, 'reauth.noPasskey'))
    const options = await generateAuthenticationOptions({
      rpID: this.options.ceremony.settings.rpId,
      allowCredentials: passkeys.map((passkey) => ({ id: passkey.id, transports: [...passkey.transports] as never })),
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS
    })
    const cookie = await this.options.ceremony.issueChallenge('reauthenticate', owner.account.id, options.challenge)
    return { status: 200, body: { options }, cookies: [cookie] }
  }

  /** `passkeys/reauthenticate`: the assertion of one of the account's passkeys, with user verification: a fresh proof. */
  async reauthenticate (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, ceremony } = this.options
    const owner = await this.options.owners.check(authToken, facts, 'session', REAUTH_REFUSAL)
    if (isRefusal(owner)) return owner
    const { account } = owner
    const parsed = parseAuthenticationResponse(body)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const challenge = await ceremony.takeChallenge(facts)
    if (challenge === null || challenge.purpose !== 'reauthenticate' || challenge.accountId !== account.id) {
      logAuthEvent(facts, 'reauth.failed', { accountId: account.id, clientAddress: facts.clientAddress, via: 'passkey', reason: 'no-challenge' })
      return spent(error(400, say(facts, 'passkey.noChallenge')))
    }
    const credential = await store.findPasskey(parsed.value.id)
    const checked = credential?.accountId !== account.id
      ? 'not-this-account'
      : parsed.value.response.userHandle !== await store.passkeyUserHandle(account.id)
        ? 'user-handle'
        : await ceremony.verifyAssertion(parsed.value, challenge, credential)
    if (checked !== 'verified') {
      logAuthEvent(facts, 'reauth.failed', { accountId: account.id, clientAddress: facts.clientAddress, via: 'passkey', reason: checked })
      return spent(error(401, say(facts, NOT_VERIFIED)))
    }
    const cookie = await this.options.proofs.record({ accountId: account.id, sessionId: owner.claims.sessionId }, 'hwk', facts, { atSignIn: false })
    logAuthEvent(facts, 'reauth.succeeded', { accountId: account.id, clientAddress: facts.clientAddress, via: 'passkey' })
    return spent({ ...successAnswer(say(facts, 'reauth.done')), cookies: cookie === null ? [] : [cookie] })
  }
}
