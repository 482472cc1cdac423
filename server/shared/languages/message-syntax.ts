/**
 * The catalogues' message format read strictly (docs/languages.md, "The
 * message format"): what the catalogue test and MESSAGES_DIR's check parse a
 * text with, saying what is wrong, and what the pseudo-locales rewrite texts
 * with. The page formats with common/languages/message-format.ts, which
 * reads the same syntax leniently and small.
 */

/** A parsed text: literal runs, `#`, values and plural choices. */
export type MessagePart = string | { readonly hash: true } | { readonly name: string, readonly branches?: ReadonlyMap<string, readonly MessagePart[]> }

/** CLDR's plural categories, the branch names a plural may use besides `=N`. */
export const PLURAL_CATEGORIES: readonly string[] = ['zero', 'one', 'two', 'few', 'many', 'other']

const NAME = /^([A-Za-z][A-Za-z0-9]*)$/
const PLURAL_HEAD = /^\s*([A-Za-z][A-Za-z0-9]*)\s*,\s*plural\s*,/
const BRANCH_KEY = /\s*(=(?:0|[1-9]\d*)|[a-z]+)\s*\{/y

/** The text from `from` to its closing brace (`from` just past an opening one), or -1 when none closes it. */
function closingBrace (text: string, from: number): number {
  let depth = 1
  for (let at = from; at < text.length; at++) {
    if (text[at] === '{') depth++
    else if (text[at] === '}' && --depth === 0) return at
  }
  return -1
}

/** Parses a text; throws SyntaxError saying what is wrong (a brace left open, a plural without `other`). */
export function parseMessage (text: string, inPlural = false): MessagePart[] {
  const parts: MessagePart[] = []
  let literal = ''
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!
    if (char === "'" && /^'?['{}#]/.test(text.slice(at + 1))) {
      // ICU's quoting: translation tools would read what follows as literal text, the page would not.
      throw new SyntaxError(`an apostrophe before "${text[at + 1]!}" at character ${at + 1} quotes it in ICU tools: write ’ (U+2019) instead`)
    } else if (char === '#' && inPlural) {
      parts.push(literal, { hash: true })
      literal = ''
    } else if (char === '}') {
      throw new SyntaxError(`a "}" without its "{" at character ${at + 1}`)
    } else if (char !== '{') {
      literal += char
    } else {
      const end = closingBrace(text, at + 1)
      if (end < 0) throw new SyntaxError(`the "{" at character ${at + 1} is never closed`)
      parts.push(literal, parseArgument(text.slice(at + 1, end), inPlural))
      literal = ''
      at = end
    }
  }
  parts.push(literal)
  return parts.filter((part) => part !== '')
}

/** `name` or `name, plural, …`, the inside of one pair of braces; a plural's branch holds no other plural (the page's formatter reads none). */
function parseArgument (inside: string, inPlural: boolean): MessagePart {
  const simple = NAME.exec(inside)
  if (simple !== null) return { name: simple[1]! }
  const plural = PLURAL_HEAD.exec(inside)
  if (plural === null) throw new SyntaxError(`"{${inside}}" is neither {name} nor {name, plural, …}`)
  if (inPlural) throw new SyntaxError(`the plural of {${plural[1]!}} is inside another plural: write each branch's sentence whole instead`)
  const branches = new Map<string, readonly MessagePart[]>()
  let at = plural[0].length
  while (inside.slice(at).trim() !== '') {
    BRANCH_KEY.lastIndex = at
    const key = BRANCH_KEY.exec(inside)
    if (key === null) throw new SyntaxError(`the plural of {${plural[1]!}} has something that is not a branch: "${inside.slice(at).trim()}"`)
    const end = closingBrace(inside, BRANCH_KEY.lastIndex)
    if (end < 0) throw new SyntaxError(`the branch "${key[1]!}" of {${plural[1]!}} is never closed`)
    if (!key[1]!.startsWith('=') && !PLURAL_CATEGORIES.includes(key[1]!)) throw new SyntaxError(`"${key[1]!}" is not a plural category (${PLURAL_CATEGORIES.join(', ')}) nor =N`)
    if (branches.has(key[1]!)) throw new SyntaxError(`the plural of {${plural[1]!}} has "${key[1]!}" twice`)
    branches.set(key[1]!, parseMessage(inside.slice(BRANCH_KEY.lastIndex, end), true))
    at = end + 1
  }
  if (!branches.has('other')) throw new SyntaxError(`the plural of {${plural[1]!}} has no "other" branch`)
  return { name: plural[1]!, branches }
}

/** What a text uses: its value names (sorted, each once) and, per plural, the branches it gives. */
export interface MessageShape {
  readonly names: readonly string[]
  readonly plurals: ReadonlyArray<{ readonly name: string, readonly branches: readonly string[] }>
}

/** The shape of a text, for the catalogue checks; throws SyntaxError as parseMessage does. */
export function messageShape (text: string): MessageShape {
  const names = new Set<string>()
  const plurals: Array<{ name: string, branches: string[] }> = []
  const visit = (parts: readonly MessagePart[]): void => {
    for (const part of parts) {
      if (typeof part === 'string' || 'hash' in part) continue
      names.add(part.name)
      if (part.branches === undefined) continue
      plurals.push({ name: part.name, branches: [...part.branches.keys()] })
      for (const branch of part.branches.values()) visit(branch)
    }
  }
  visit(parseMessage(text))
  return { names: [...names].sort(), plurals }
}

/** The placeholder names a text uses, sorted and each once; none for a text that does not parse. */
export function placeholdersOf (text: string): string[] {
  try {
    return [...messageShape(text).names]
  } catch {
    return []
  }
}

/** Parts written back as a text of the format, each literal run through `literal`. */
function writeParts (parts: readonly MessagePart[], literal: (text: string) => string): string {
  return parts.map((part) => {
    if (typeof part === 'string') return literal(part)
    if ('hash' in part) return '#'
    if (part.branches === undefined) return `{${part.name}}`
    const branches = [...part.branches].map(([key, branch]) => `${key} {${writeParts(branch, literal)}}`)
    return `{${part.name}, plural, ${branches.join(' ')}}`
  }).join('')
}

/**
 * A text with its literal words changed by `literal` and its syntax kept (the
 * pseudo-locales, server/edge/languages/pseudo-locales.ts); throws SyntaxError
 * as parseMessage does.
 */
export function rewriteLiterals (text: string, literal: (text: string) => string): string {
  return writeParts(parseMessage(text), literal)
}
