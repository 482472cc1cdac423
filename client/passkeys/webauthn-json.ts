import type { CredentialJson } from './passkey-calls.js'
import type { WebAuthnOptionsJson } from './passkey-answers.js'

/*
 * WebAuthn's JSON forms, both ways: the browser's own helpers
 * (parseRequestOptionsFromJSON, parseCreationOptionsFromJSON, toJSON) where it
 * has them, else a small base64url conversion of the few buffer fields. Smaller
 * than @simplewebauthn/browser, and it goes away as browsers catch up.
 */

const fromBase64Url = (text: string): ArrayBuffer =>
  Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (character) => character.charCodeAt(0)).buffer

const toBase64Url = (buffer: ArrayBuffer): string =>
  btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

type Descriptor = { readonly id: string } & Record<string, unknown>

const descriptors = (list: unknown): PublicKeyCredentialDescriptor[] | undefined =>
  Array.isArray(list) ? (list as Descriptor[]).map((item) => ({ ...item, id: fromBase64Url(item.id) }) as PublicKeyCredentialDescriptor) : undefined

interface JsonHelpers {
  parseRequestOptionsFromJSON?: (json: unknown) => PublicKeyCredentialRequestOptions
  parseCreationOptionsFromJSON?: (json: unknown) => PublicKeyCredentialCreationOptions
}

const helpers = (): JsonHelpers => PublicKeyCredential as unknown as JsonHelpers

export function requestOptionsFromJson (json: WebAuthnOptionsJson): PublicKeyCredentialRequestOptions {
  const parse = helpers().parseRequestOptionsFromJSON
  if (parse !== undefined) return parse.call(PublicKeyCredential, json)
  return {
    ...json,
    challenge: fromBase64Url(json.challenge as string),
    allowCredentials: descriptors(json.allowCredentials)
  }
}

export function creationOptionsFromJson (json: WebAuthnOptionsJson): PublicKeyCredentialCreationOptions {
  const parse = helpers().parseCreationOptionsFromJSON
  if (parse !== undefined) return parse.call(PublicKeyCredential, json)
  const user = json.user as { id: string } & Record<string, unknown>
  return {
    ...json,
    challenge: fromBase64Url(json.challenge as string),
    user: { ...user, id: fromBase64Url(user.id) },
    excludeCredentials: descriptors(json.excludeCredentials)
  } as unknown as PublicKeyCredentialCreationOptions
}

/** The credential's JSON form: toJSON() where the browser has it, else the response's buffers in base64url. */
export function credentialToJson (credential: PublicKeyCredential): CredentialJson {
  const own = (credential as { toJSON?: () => unknown }).toJSON
  if (own !== undefined) return own.call(credential) as CredentialJson
  const response: Record<string, unknown> = {}
  const raw = credential.response as unknown as Record<string, unknown>
  for (const field of ['clientDataJSON', 'authenticatorData', 'signature', 'userHandle', 'attestationObject']) {
    const value = raw[field]
    if (value instanceof ArrayBuffer) response[field] = toBase64Url(value)
  }
  const transports = (raw.getTransports as (() => string[]) | undefined)?.call(credential.response)
  if (transports !== undefined) response.transports = transports
  return {
    id: credential.id,
    rawId: toBase64Url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined
  }
}
