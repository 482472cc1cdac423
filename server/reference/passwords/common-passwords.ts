import { dictionary } from '@zxcvbn-ts/language-common'
import type { AnswerKey } from '../languages/answer-texts.js'

/**
 * The offline part of NIST SP 800-63B-4's "not a commonly used, expected or
 * compromised value": zxcvbn-ts's list of the 49,233 most common passwords
 * (from published breaches), checked without the network so that an
 * air-gapped install, or one whose range service is down, still refuses
 * them. The breach corpus (breached-passwords/) is checked after these rules.
 */

let commonPasswords: ReadonlySet<string> | null = null

/**
 * The list, lower-cased, built at its first use (the package's import and
 * this Set take some 60 ms and 4.4 MB of heap on an idle machine, several
 * times that on a busy one: server/reference/services.ts builds it at start, so that no
 * visitor waits for it).
 */
export function commonPasswordList (): ReadonlySet<string> {
  commonPasswords ??= new Set(dictionary['passwords-common'].map((password) => password.toLowerCase()))
  return commonPasswords
}

/**
 * Digits, spaces and ASCII punctuation or symbols at the end of a password:
 * what people add to a word to satisfy composition rules ("Summer2024!").
 */
const ADDED_DIGITS_AND_MARKS = /[\d -/:-@[-`{-~]+$/

/**
 * The longest such ending still taken for padding. Eight characters hold what
 * composition rules make people add: a year and a mark or two ("2024!!"), the
 * runs "123456" and "12345678", a date ("19991231"). A longer ending is no
 * longer a habit but length of its own ("dragon 4817 2931 0563 7742",
 * "bonjour 1234567890123": NIST's long passphrases), which the rule must not
 * refuse; the common ones among those are in the breach corpus, checked after.
 */
const MAX_ADDED_LENGTH = 8

/**
 * Why `password` is too easy to guess, or null. Checked case-insensitively,
 * in this order:
 * 1. it is in the common-password list (`field.passwordTooCommon`);
 * 2. it is one character repeated, `aaaaaaaa` (`field.passwordRepeated`);
 * 3. once the digits, spaces and ASCII punctuation at its end, if there are at
 *    most MAX_ADDED_LENGTH of them, are taken off, what is left is non-empty and
 *    in the list: `password1234`, `Summer2024!`, `monkey!!99`
 *    (`field.passwordCommonWithSuffix`). Only the end counts, only digits and
 *    punctuation, and only a short run: `2024summer`, `summer in paris` and
 *    `bonjour 1234567890123` pass this rule (they may still be in the breach corpus);
 * 4. what is left after step 3 is one of `contextWords` (the product's name,
 *    the email address or its local part), or the whole password is
 *    (`field.passwordContextWord`): NIST's "context-specific words".
 */
export function guessablePasswordReason (password: string, contextWords: readonly string[] = []): AnswerKey | null {
  const lowered = password.toLowerCase()
  const list = commonPasswordList()
  if (list.has(lowered)) return 'field.passwordTooCommon'
  if (new Set(lowered).size === 1) return 'field.passwordRepeated'
  const added = ADDED_DIGITS_AND_MARKS.exec(lowered)?.[0] ?? ''
  const stem = added.length <= MAX_ADDED_LENGTH ? lowered.slice(0, lowered.length - added.length) : lowered
  if (stem !== '' && stem !== lowered && list.has(stem)) return 'field.passwordCommonWithSuffix'
  const words = contextWords.map((word) => word.trim().toLowerCase()).filter((word) => word !== '')
  const squeezed = words.map((word) => word.replace(/\s+/g, ''))
  if ([...words, ...squeezed].some((word) => word === stem || word === lowered)) return 'field.passwordContextWord'
  return null
}
