import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'
import { asBody, type Parsed } from '../http/validation.js'
import type { AnswerKey } from '../languages/answer-texts.js'

/**
 * The shapes of the passkey calls' bodies (docs/passkeys.md), checked before
 * any of it reaches the WebAuthn library or the store: every buffer a
 * base64url string of bounded length, no field of an unexpected type.
 */

/** A credential id: WebAuthn allows up to 1023 bytes, 1364 base64url characters. */
const CREDENTIAL_ID_MAX_LENGTH = 1364
/** clientDataJSON, authenticatorData, a signature, an attestation object: far below the edge's 16 KiB body limit. */
const BUFFER_MAX_LENGTH = 12 * 1024
const USER_HANDLE_MAX_LENGTH = 86
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])
const BASE64URL = /^[\w-]*$/

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value })
const MALFORMED: AnswerKey = 'passkey.malformed'
const fail = <T>(): Parsed<T> => ({ ok: false, error: MALFORMED })

function isBase64url (value: unknown, maxLength: number, minLength = 1): value is string {
  return typeof value === 'string' && value.length >= minLength && value.length <= maxLength && BASE64URL.test(value)
}

/** A credential id, as the page may send it (also on its own, for the admin command). */
export function isCredentialId (value: unknown): value is string {
  return isBase64url(value, CREDENTIAL_ID_MAX_LENGTH)
}

function credentialObject (body: unknown): Record<string, unknown> | null {
  const credential = asBody(body).credential
  if (credential === null || typeof credential !== 'object' || Array.isArray(credential)) return null
  const fields = credential as Record<string, unknown>
  if (!isCredentialId(fields.id) || fields.rawId !== fields.id || fields.type !== 'public-key') return null
  if (fields.response === null || typeof fields.response !== 'object' || Array.isArray(fields.response)) return null
  return fields
}

/** `{"credential": <AuthenticationResponseJSON>}`; the user handle is required (every passkey is discoverable). */
export function parseAuthenticationResponse (body: unknown): Parsed<AuthenticationResponseJSON> {
  const credential = credentialObject(body)
  if (credential === null) return fail()
  const response = credential.response as Record<string, unknown>
  if (!isBase64url(response.clientDataJSON, BUFFER_MAX_LENGTH) || !isBase64url(response.authenticatorData, BUFFER_MAX_LENGTH) ||
    !isBase64url(response.signature, BUFFER_MAX_LENGTH) || !isBase64url(response.userHandle, USER_HANDLE_MAX_LENGTH)) return fail()
  return ok({
    id: credential.id as string,
    rawId: credential.id as string,
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: response.clientDataJSON,
      authenticatorData: response.authenticatorData,
      signature: response.signature,
      userHandle: response.userHandle
    }
  })
}

/** `{"credential": <RegistrationResponseJSON>}`; unknown transports are dropped, as the specification asks. */
export function parseRegistrationResponse (body: unknown): Parsed<RegistrationResponseJSON> {
  const credential = credentialObject(body)
  if (credential === null) return fail()
  const response = credential.response as Record<string, unknown>
  if (!isBase64url(response.clientDataJSON, BUFFER_MAX_LENGTH) || !isBase64url(response.attestationObject, BUFFER_MAX_LENGTH)) return fail()
  const transports = Array.isArray(response.transports) && response.transports.length <= 10
    ? response.transports.filter((item): item is string => typeof item === 'string' && TRANSPORTS.has(item))
    : []
  return ok({
    id: credential.id as string,
    rawId: credential.id as string,
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: response.clientDataJSON,
      attestationObject: response.attestationObject,
      transports: [...new Set(transports)] as RegistrationResponseJSON['response']['transports']
    }
  })
}

/** `{"conditional": true | false}` (absent: false) of passkeys/register/options. */
export function parseConditional (body: unknown): Parsed<boolean> {
  const conditional = asBody(body).conditional
  if (conditional === undefined) return ok(false)
  return typeof conditional === 'boolean' ? ok(conditional) : { ok: false, error: 'passkey.conditionalInvalid' }
}
