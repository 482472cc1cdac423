import type { ProofAnswer } from '../account-changes/fresh-proof-answers.js'
import { passkeyReauthenticate, passkeyReauthenticateOptions } from '../account-changes/fresh-proof-calls.js'
import { cancelled } from './browser-passkeys.js'
import { credentialToJson, requestOptionsFromJson } from './webauthn-json.js'

/**
 * Proves the signed-in account again with one of its passkeys: the browser's
 * modal prompt, limited by the options to the account's own passkeys, with
 * user verification (docs/account-changes.md). The visitor's cancel is
 * `cancelled`, which says nothing.
 */
export async function proveWithPasskey (auth: string): Promise<ProofAnswer | { readonly kind: 'cancelled' }> {
  const options = await passkeyReauthenticateOptions(auth)
  if (options.kind !== 'options') return options
  let credential: Credential | null
  try {
    // Inside the try: options the browser cannot read fail the proof, as a refused ceremony does.
    credential = await navigator.credentials.get({ publicKey: requestOptionsFromJson(options.options) })
  } catch (error) {
    return cancelled(error) ? { kind: 'cancelled' } : { kind: 'failed' }
  }
  if (credential === null) return { kind: 'cancelled' }
  return await passkeyReauthenticate(auth, credentialToJson(credential as PublicKeyCredential))
}
