import { CHALLENGE_HEADER_MAX_LENGTH } from '../../../common/challenge.js'
import type { ProviderSettings } from './challenge-config.js'

/** How long the edge waits for the provider's siteverify. */
export const PROVIDER_VERIFY_TIMEOUT_MS = 5_000

/**
 * Turnstile's and hCaptcha's check of a widget's token, the one call both
 * document alike: a form POST of `secret`, `response` and `remoteip` to
 * siteverify, answered `{ success: boolean }`. Kept thin on purpose: the
 * provider decides; the tokens are single-use at the provider.
 * Resolves `passed`, `refused` (the provider said no, or the token is not
 * one) or `unverified` (the provider could not be asked: a refusal too,
 * since the challenge is only asked for when risk is high; logged by the caller).
 */
export async function verifyProviderToken (provider: ProviderSettings, token: string, remoteAddress: string | null): Promise<'passed' | 'refused' | 'unverified'> {
  if (token.length === 0 || token.length > CHALLENGE_HEADER_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(token)) return 'refused'
  const form = new URLSearchParams({ secret: provider.secret, response: token })
  if (remoteAddress !== null) form.set('remoteip', remoteAddress)
  if (provider.kind === 'hcaptcha') form.set('sitekey', provider.siteKey)
  let answer: Response
  try {
    answer = await fetch(provider.verifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      redirect: 'error',
      signal: AbortSignal.timeout(PROVIDER_VERIFY_TIMEOUT_MS)
    })
    if (!answer.ok) return 'unverified'
    const body = await answer.json() as unknown
    if (body === null || typeof body !== 'object' || typeof (body as { success?: unknown }).success !== 'boolean') return 'unverified'
    return (body as { success: boolean }).success ? 'passed' : 'refused'
  } catch {
    return 'unverified'
  }
}
