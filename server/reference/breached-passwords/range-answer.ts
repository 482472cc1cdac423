import { createHash } from 'node:crypto'

/**
 * The k-anonymity range protocol of Have I Been Pwned's Pwned Passwords:
 * the SHA-1 of a password in upper-case hex is split into a prefix of five
 * digits, which is all that is sent, and a suffix of 35, looked up in the
 * answer: one `SUFFIX:COUNT` line per hash of the corpus with that prefix.
 */

const PREFIX_LENGTH = 5

export interface RangeKey {
  /** The five hex digits sent. Never logged: with the answer it narrows the password to a few hundred hashes. */
  readonly prefix: string
  /** The 35 hex digits that stay here. */
  readonly suffix: string
}

/** The range key of a password (SHA-1 of its UTF-8 bytes, upper-case hex). */
export function rangeKey (password: string): RangeKey {
  const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase()
  return { prefix: hash.slice(0, PREFIX_LENGTH), suffix: hash.slice(PREFIX_LENGTH) }
}

const LINE = /^([0-9A-F]{35}):(\d{1,10})$/i

/**
 * A range answer, kept compactly: the lines with a count above 0 (padding
 * lines, `Add-Padding: true`'s decoys, have count 0), upper-cased, one
 * string. A real answer has about a thousand lines (some 40 KB).
 */
export class RangeAnswer {
  private constructor (private readonly lines: string) {}

  /**
   * Parses an answer body: every non-empty line must be `SUFFIX:COUNT`
   * (CRLF or LF), and there must be one at least; null when one is not (an
   * HTML error page, a truncated answer) or there is none: the caller treats
   * it as unavailable, never as clean. No real range is empty: each of the
   * 16⁵ prefixes of the corpus has some 800 hashes (a mirror of the published
   * files too), and a padded answer has hundreds of lines more, so an empty
   * 200 is a proxy's or a broken mirror's, not an answer.
   */
  static parse (body: string): RangeAnswer | null {
    let kept = '\n'
    let lines = 0
    for (const raw of body.split('\n')) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
      if (line === '') continue
      const match = LINE.exec(line)
      if (match === null) return null
      lines++
      if (Number(match[2]) > 0) kept += `${match[1]!.toUpperCase()}:${match[2]}\n`
    }
    return lines === 0 ? null : new RangeAnswer(kept)
  }

  /** How often the corpus has seen the suffix's hash; 0 when it has not (or only as padding). */
  count (suffix: string): number {
    const start = this.lines.indexOf(`\n${suffix}:`)
    if (start === -1) return 0
    const from = start + suffix.length + 2
    return Number(this.lines.slice(from, this.lines.indexOf('\n', from)))
  }
}
