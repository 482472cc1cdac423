import { timingSafeEqual } from 'node:crypto'
import { cookieValue } from './cookie-header.js'
import { ACCOUNTS_PATH } from './exposed-routes.js'
import { hashToken, newOpaqueToken } from '../sessions/tokens.js'

/**
 * A cookie that ties one ceremony (a single sign-on, a passkey challenge) to
 * the browser that started it: it holds a random binding, and the store keeps
 * only the binding's hash beside what it binds. HttpOnly and Secure, under the
 * accounts path; each use chooses its name, lifetime and SameSite.
 */
export interface BindingCookie {
  /** The Set-Cookie value that stores `binding` for the ceremony. */
  set: (binding: string) => string
  /** The Set-Cookie value that removes the cookie once its ceremony is over. */
  cleared: () => string
  /** The binding from a Cookie header, or null when absent or malformed. */
  read: (cookieHeader: string | undefined) => string | null
}

const BINDING_FORMAT = /^[\w-]{43}$/

export function bindingCookie (name: string, lifetimeMs: number, sameSite: 'Lax' | 'Strict'): BindingCookie {
  const attributes = `Path=${ACCOUNTS_PATH}; HttpOnly; Secure; SameSite=${sameSite}`
  return {
    set: (binding) => `${name}=${binding}; Max-Age=${lifetimeMs / 1000}; ${attributes}`,
    cleared: () => `${name}=; Max-Age=0; ${attributes}`,
    read (cookieHeader) {
      const value = cookieValue(cookieHeader, name)
      return value !== undefined && BINDING_FORMAT.test(value) ? value : null
    }
  }
}

export function newBinding (): string {
  return newOpaqueToken()
}

export function bindingHash (binding: string): string {
  return hashToken(binding)
}

/** Whether `binding` hashes to `expectedHash`, compared in constant time. */
export function bindingMatches (binding: string | null, expectedHash: string): boolean {
  if (binding === null) return false
  const actual = Buffer.from(bindingHash(binding))
  const expected = Buffer.from(expectedHash)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
