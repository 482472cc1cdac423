import { SAML, SamlStatusError, ValidateInResponseTo, type CacheProvider, type Profile, type SamlConfig } from '@node-saml/node-saml'
import { parseEmail } from '../http/validation.js'
import type { AssertedIdentity } from './asserted-identity.js'
import type { SamlConnection } from './connections.js'
import { SSO_STATE_TTL_MS } from './state-cookie.js'

/** Clocks of the provider and of this service may differ by this much. */
const SAML_CLOCK_SKEW_MS = 60_000
/** "The provider chooses": works with every provider; the email is then read from the attributes. */
const UNSPECIFIED_NAME_ID_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'
const EMAIL_NAME_ID_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer'
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success'
const FIRST_STATUS_CODE = /<(?:[\w.-]+:)?StatusCode\b[^>]*?\sValue\s*=\s*["']([^"']+)["']/

/** Where providers put the address, by convention (LDAP mail, eduPerson OID, Microsoft's claim). */
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'
]

/** A verified assertion: who it names, and how long it must be remembered to refuse its replay. */
export interface VerifiedAssertion {
  readonly identity: AssertedIdentity
  readonly assertionId: string
  readonly rememberUntil: number
}

/** The provider refused to sign the visitor in (a SAML status other than Success). */
export class SamlRefusedError extends Error {}

type XmlNode = { $?: Record<string, string>, _?: string, [child: string]: unknown }

function children (node: XmlNode | undefined, name: string): XmlNode[] {
  const value = node?.[name]
  return Array.isArray(value) ? value as XmlNode[] : []
}

function firstText (value: unknown): string | null {
  const first: unknown = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : null
}

function emailOf (profile: Profile): string | null {
  for (const attribute of EMAIL_ATTRIBUTES) {
    const value = firstText(profile[attribute])
    if (value !== null) return value
  }
  const format = profile.nameIDFormat ?? UNSPECIFIED_NAME_ID_FORMAT
  if ((format === EMAIL_NAME_ID_FORMAT || format === UNSPECIFIED_NAME_ID_FORMAT) && parseEmail(profile.nameID).ok) return profile.nameID
  return null
}

/**
 * The Response's top-level status. node-saml only looks at it when there is
 * no assertion; a signed assertion inside a failed Response must not sign
 * anyone in either. This check can only refuse more, never accept more.
 */
function responseStatus (responseXml: string): string | null {
  return FIRST_STATUS_CODE.exec(responseXml.replace(/<!--[\s\S]*?-->/g, ''))?.[1] ?? null
}

/**
 * A cache that knows the one request this answer must be for: node-saml's
 * InResponseTo checks (on the Response and on the SubjectConfirmationData)
 * then compare against the transaction taken from the store, and an
 * unsolicited (IdP-initiated) response is refused.
 */
function singleRequestCache (requestId: string, issuedAt: string | null, onSave?: (instant: string) => void): CacheProvider {
  return {
    async saveAsync (key, value) {
      onSave?.(value)
      return { value, createdAt: Date.now() }
    },
    async getAsync (key) { return key === requestId ? issuedAt : null },
    async removeAsync (key) { return key }
  }
}

/**
 * The service provider for one SAML connection (node-saml): a signed (when
 * configured) AuthnRequest over HTTP-Redirect, and on the way back a signed
 * assertion checked for audience, recipient, time window and InResponseTo.
 */
export class SamlServiceProvider {
  constructor (private readonly connection: SamlConnection, private readonly acsUrl: string) {}

  private options (cacheProvider: CacheProvider, requestId: string | null): SamlConfig {
    const { entryPoint, idpCerts, spEntityId, requestSigning } = this.connection
    return {
      entryPoint,
      issuer: spEntityId,
      audience: spEntityId,
      callbackUrl: this.acsUrl,
      idpCert: [...idpCerts],
      // The assertion carries the identity: its own signature is required; a signed Response alone is not enough.
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: SSO_STATE_TTL_MS,
      cacheProvider,
      identifierFormat: UNSPECIFIED_NAME_ID_FORMAT,
      // Asking for a password context would make providers refuse MFA, Kerberos or passkey sign-ins.
      disableRequestedAuthnContext: true,
      signatureAlgorithm: 'sha256',
      ...(requestId === null ? {} : { generateUniqueId: () => requestId }),
      ...(requestSigning === null ? {} : { privateKey: requestSigning.privateKey, publicCert: requestSigning.certificate })
    }
  }

  /** The provider's URL carrying the AuthnRequest `requestId` (also the RelayState), and when it was issued. */
  async begin (requestId: string): Promise<{ readonly url: string, readonly issuedAt: string }> {
    let issuedAt: string | null = null
    const saml = new SAML(this.options(singleRequestCache(requestId, null, (instant) => { issuedAt = instant }), requestId))
    const url = await saml.getAuthorizeUrlAsync(requestId, undefined, {})
    if (issuedAt === null) throw new Error('node-saml did not record the request')
    return { url, issuedAt }
  }

  /** Verifies a base64 SAMLResponse answering the request `requestId`; throws when anything is wrong. */
  async verify (samlResponse: string, request: { readonly requestId: string, readonly issuedAt: string }, now: number): Promise<VerifiedAssertion> {
    const saml = new SAML(this.options(singleRequestCache(request.requestId, request.issuedAt), null))
    let profile: Profile | null
    try {
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }))
    } catch (error) {
      if (error instanceof SamlStatusError) throw new SamlRefusedError(error.message)
      throw error
    }
    if (profile === null) throw new Error('the response holds no assertion')
    if (responseStatus(profile.getSamlResponseXml?.() ?? '') !== SUCCESS) throw new SamlRefusedError('the response status is not Success')
    const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion
    if (assertion === undefined) throw new Error('the response holds no assertion')

    // node-saml leaves the Recipient to us (SAML's Web Browser SSO profile: it must be our ACS).
    const addressedToUs = children(children(assertion, 'Subject')[0], 'SubjectConfirmation').some((confirmation) =>
      confirmation.$?.Method === BEARER &&
      children(confirmation, 'SubjectConfirmationData').some((data) => data.$?.Recipient === this.acsUrl))
    if (!addressedToUs) throw new Error('the assertion is not addressed to this service (Recipient)')
    if (this.connection.idpIssuer !== null && profile.issuer !== this.connection.idpIssuer) {
      throw new Error('the assertion comes from another issuer')
    }
    const assertionId = assertion.$?.ID
    if (typeof assertionId !== 'string' || assertionId === '') throw new Error('the assertion has no ID')
    const notOnOrAfter = Date.parse(children(assertion, 'Conditions')[0]?.$?.NotOnOrAfter ?? '')
    return {
      identity: { subject: profile.nameID, email: emailOf(profile), emailVerified: null },
      assertionId,
      // Kept while the assertion could still be accepted, and at least as long as a sign-in lasts.
      rememberUntil: Math.max(now + SSO_STATE_TTL_MS, Number.isNaN(notOnOrAfter) ? 0 : notOnOrAfter + SAML_CLOCK_SKEW_MS)
    }
  }

  /** The SP metadata to give the provider: entity id, ACS, and the request-signing certificate when there is one. */
  metadata (): string {
    const saml = new SAML(this.options(singleRequestCache('', null), null))
    return saml.generateServiceProviderMetadata(null, this.connection.requestSigning?.certificate ?? null)
  }
}
