/**
 * The authentication context classes the provider states (`acr`), weakest
 * first (docs/oidc-provider.md#acr-values).
 */
export const ACR = Object.freeze({
  /** One factor: a password, Google, single sign-on, a code emailed to the account's address. */
  oneFactor: 'urn:threshold:acr:1fa',
  /** A second factor followed the first, or a passkey. */
  multiFactor: 'urn:threshold:acr:mfa',
  /** Phishing-resistant: a passkey. */
  phishingResistant: 'urn:threshold:acr:phr'
})

export type AcrValue = typeof ACR[keyof typeof ACR]

/** Every value, weakest first: discovery lists them, and a value's place is its strength. */
export const ACR_VALUES: readonly AcrValue[] = [ACR.oneFactor, ACR.multiFactor, ACR.phishingResistant]

/** The class a sign-in reached, from its RFC 8176 `amr`: `hwk` is a passkey, `mfa` a second factor that followed. */
export function acrOf (amr: readonly string[]): AcrValue {
  if (amr.includes('hwk')) return ACR.phishingResistant
  if (amr.includes('mfa')) return ACR.multiFactor
  return ACR.oneFactor
}

/** Whether `reached` is at least as strong as `asked`; an unknown value asks for nothing. */
export function meets (reached: AcrValue, asked: string): boolean {
  const wanted = ACR_VALUES.indexOf(asked as AcrValue)
  return wanted === -1 || ACR_VALUES.indexOf(reached) >= wanted
}
