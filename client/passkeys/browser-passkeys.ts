/*
 * The parts of the browser's WebAuthn API newer than TypeScript's DOM types
 * (Signal API, client capabilities, conditional create), each optional: the
 * page calls what the browser has and skips the rest.
 */

interface SignalApi {
  signalUnknownCredential?: (options: { rpId: string, credentialId: string }) => Promise<void>
  signalAllAcceptedCredentials?: (options: { rpId: string, userId: string, allAcceptedCredentialIds: readonly string[] }) => Promise<void>
  signalCurrentUserDetails?: (options: { rpId: string, userId: string, name: string, displayName: string }) => Promise<void>
  getClientCapabilities?: () => Promise<Record<string, boolean | undefined>>
  isConditionalMediationAvailable?: () => Promise<boolean>
}

/** PublicKeyCredential with its optional newer statics. */
export const publicKeyCredential = (): SignalApi => PublicKeyCredential

/** Calls a Signal API method the browser may lack, without waiting and without letting it fail anything. */
export function signal<Options> (method: ((options: Options) => Promise<void>) | undefined, options: Options): void {
  if (method === undefined) return
  try {
    method.call(PublicKeyCredential, options).catch(() => undefined)
  } catch {
    // A browser that throws synchronously is as good as one without the method.
  }
}

/** Whether a ceremony ended because the visitor or the page cancelled it (not a failure to report). */
export const cancelled = (error: unknown): boolean =>
  error instanceof DOMException && (error.name === 'NotAllowedError' || error.name === 'AbortError')
