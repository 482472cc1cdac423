import type { Refusal } from '../../common/http/accounts-answers.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'
import type { ChangeRefusal } from '../account-changes/fresh-proof-answers.js'
import type { PasskeyTokens } from './passkey-answers.js'
import { passkeyLogin, passkeyLoginOptions, passkeyRegister, passkeyRegisterOptions } from './passkey-calls.js'
import { cancelled, publicKeyCredential, signal } from './browser-passkeys.js'
import { notNowRemembered } from './not-now.js'
import { passkeyTimings } from './passkey-timing.js'
import { credentialToJson, creationOptionsFromJson, requestOptionsFromJson } from './webauthn-json.js'

/** How a passkey sign-in ended; `cancelled` says nothing to the visitor (they, or the page, stopped it). */
export type PasskeySignInOutcome =
  | PasskeyTokens
  | Refusal
  | { readonly kind: 'failed' }
  | { readonly kind: 'cancelled' }

export interface PasskeySignInRequest {
  /** `conditional`: the Email field's autofill menu; `modal`: the browser's prompt, after the button. */
  readonly mediation: 'conditional' | 'modal'
  readonly signal: AbortSignal
  readonly context: LoginContextFields
  readonly rpId: string
  /** Called once the visitor has picked a passkey, as the page starts posting it. */
  readonly onChosen: () => void
}

/**
 * A sign-in with a passkey, up to the accounts service's answer. The
 * autofill request is quiet: whatever stops it before the visitor picks a
 * passkey (no conditional mediation, options refused, an abort) is
 * `cancelled`. A passkey the service does not know is forgotten by the
 * visitor's password manager (signalUnknownCredential), and refused.
 */
export async function signInWithPasskey (request: PasskeySignInRequest): Promise<PasskeySignInOutcome> {
  const quiet = request.mediation === 'conditional'
  if (quiet && (await publicKeyCredential().isConditionalMediationAvailable?.().catch(() => false)) !== true) return { kind: 'cancelled' }
  const options = await passkeyLoginOptions()
  if (options.kind !== 'options') return quiet ? { kind: 'cancelled' } : options
  if (request.signal.aborted) return { kind: 'cancelled' }
  let credential: Credential | null
  try {
    credential = await navigator.credentials.get({
      ...(quiet ? { mediation: 'conditional' } : {}),
      publicKey: requestOptionsFromJson(options.options),
      signal: request.signal
    })
  } catch (error) {
    return quiet || cancelled(error) ? { kind: 'cancelled' } : { kind: 'failed' }
  }
  if (credential === null) return { kind: 'cancelled' }
  request.onChosen()
  const answer = await passkeyLogin(credentialToJson(credential as PublicKeyCredential), request.context, quiet ? 'conditional' : 'button')
  if (answer.kind === 'unknown-credential') {
    signal(publicKeyCredential().signalUnknownCredential, { rpId: request.rpId, credentialId: answer.credentialId })
    return { kind: 'error', message: answer.message }
  }
  return answer
}

/**
 * After a passkey sign-in: tells the visitor's password manager which
 * passkeys the account still has, and its current email and name. Neither
 * is waited for.
 */
export function signalSignedIn (rpId: string, tokens: PasskeyTokens): void {
  if (tokens.userId === '') return
  const api = publicKeyCredential()
  signal(api.signalAllAcceptedCredentials, { rpId, userId: tokens.userId, allAcceptedCredentialIds: tokens.credentialIds })
  signal(api.signalCurrentUserDetails, { rpId, userId: tokens.userId, name: tokens.email, displayName: tokens.name === '' ? tokens.email : tokens.name })
}

/** What follows a password sign-in: a passkey was created, the offer, or nothing (declined lately, or one is already on this device). */
export type UpgradeOutcome = 'created' | 'offer' | 'skip'

const TIMED_OUT = Symbol('timed out')

/**
 * The automatic upgrade after a password sign-in: where the browser can
 * create a passkey without a prompt (`conditionalCreate`), it is asked to,
 * for at most the bound; the options list the account's passkeys as
 * excluded, so a browser that already holds one throws InvalidStateError and
 * nothing is offered. Anything else ends in the offer.
 */
export async function upgradeAfterPassword (auth: string): Promise<UpgradeOutcome> {
  if (notNowRemembered()) return 'skip'
  const capabilities = await publicKeyCredential().getClientCapabilities?.().catch(() => undefined)
  if (capabilities?.conditionalCreate !== true) return 'offer'
  const options = await passkeyRegisterOptions(auth, true)
  if (options.kind !== 'options') return 'offer'
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  // Raced as well as aborted: a request that ignores its signal must not hold the visitor either.
  const bound = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      controller.abort()
      resolve(TIMED_OUT)
    }, passkeyTimings.upgradeBoundMs)
  })
  try {
    const credential = await Promise.race([
      navigator.credentials.create({ mediation: 'conditional', publicKey: creationOptionsFromJson(options.options), signal: controller.signal } as CredentialCreationOptions),
      bound
    ])
    if (credential === TIMED_OUT || credential === null) return 'offer'
    await passkeyRegister(auth, credentialToJson(credential as PublicKeyCredential), true)
    return 'created'
  } catch (error) {
    return error instanceof DOMException && error.name === 'InvalidStateError' ? 'skip' : 'offer'
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The offer's "Create a passkey": the browser's prompt, with user
 * verification; its cancel is no failure. Where no sign-in in this browser
 * is fresh enough (docs/account-changes.md), the service's refusal, for the
 * offer to ask for a proof (or a new sign-in) and call this again.
 */
export async function createPasskey (auth: string): Promise<'created' | 'cancelled' | 'failed' | ChangeRefusal> {
  const options = await passkeyRegisterOptions(auth, false)
  if (options.kind === 'proof-needed' || options.kind === 'signed-out') return options
  if (options.kind !== 'options') return 'failed'
  let credential: Credential | null
  try {
    credential = await navigator.credentials.create({ publicKey: creationOptionsFromJson(options.options) })
  } catch (error) {
    // InvalidStateError: this device already holds one of the account's passkeys; nothing to create.
    return cancelled(error) || (error instanceof DOMException && error.name === 'InvalidStateError') ? 'cancelled' : 'failed'
  }
  if (credential === null) return 'cancelled'
  const answer = await passkeyRegister(auth, credentialToJson(credential as PublicKeyCredential), false)
  return answer.kind === 'success' ? 'created' : 'failed'
}
